//! `factor [NUMBER]...`: prime factors of each number (from the arguments, or the words
//! of standard input), any size. Trial division by small primes, then Miller–Rabin and
//! Pollard–Brent rho: in u64/u128 arithmetic when the number fits, else with BigUint.

use std::ffi::OsString;

use num_bigint::BigUint;
use num_integer::Integer;
use num_traits::{One, ToPrimitive, Zero};

use common::args::{bytes_os, os_bytes, Parsed};
use common::io::quote;
use common::{Command, Io, OptSpec, UError};

const SPEC: &[OptSpec] = &[];

const HELP: &str = "Usage: {name} [NUMBER]...\n  or:  {name} OPTION\nPrint the prime factors of each specified integer NUMBER.  If none\nare specified on the command line, read them from standard input.\n\n{standard}";

const FACTOR: Command = Command::new("factor", SPEC, HELP);

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let mut numbers: Vec<Vec<u8>> = Vec::new();
    FACTOR.options(&args, io, &mut |_, p| {
        match p {
            Parsed::Opt { .. } => {}
            Parsed::Operand(n) => numbers.push(os_bytes(&n).to_vec()),
        }
        Ok(())
    })?;
    let mut status = 0;
    if !numbers.is_empty() {
        for n in &numbers {
            if !factor_word(n, io) {
                status = 1;
            }
        }
        return Ok(status);
    }
    let mut line = Vec::new();
    loop {
        line.clear();
        match io.stdin.read_until(b'\n', &mut line) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => {
                return Err(UError::new(1, common::strerror(&e)));
            }
        }
        let words: Vec<Vec<u8>> = line.split(|c| c.is_ascii_whitespace()).filter(|w| !w.is_empty()).map(|w| w.to_vec()).collect();
        for w in &words {
            if !factor_word(w, io) {
                status = 1;
            }
        }
    }
    Ok(status)
}

/// Prints `N: factors` for one word; false (after a message) when it is not a number.
fn factor_word(word: &[u8], io: &mut Io) -> bool {
    let start = word.iter().position(|c| !c.is_ascii_whitespace()).unwrap_or(word.len());
    let mut digits = &word[start..];
    if digits.first() == Some(&b'+') {
        digits = &digits[1..];
    }
    if digits.is_empty() || !digits.iter().all(|c| c.is_ascii_digit()) {
        io.error(format!("{} is not a valid positive integer", quote(&bytes_os(word))));
        return false;
    }
    let n = BigUint::parse_bytes(digits, 10).unwrap_or_default();
    let mut line = n.to_string();
    line.push(':');
    for f in factorize(n) {
        line.push(' ');
        line.push_str(&f.to_string());
    }
    line.push('\n');
    let _ = io.out(line.as_bytes());
    true
}

/// The prime factors of `n` in ascending order (none for 0 and 1).
fn factorize(n: BigUint) -> Vec<BigUint> {
    if n <= BigUint::one() {
        return Vec::new();
    }
    if let Some(small) = n.to_u64() {
        let mut factors = Vec::new();
        factor_u64(small, &mut factors);
        factors.sort_unstable();
        return factors.into_iter().map(BigUint::from).collect();
    }
    let mut n = n;
    let mut factors = Vec::new();
    for p in SMALL_PRIMES {
        let p = BigUint::from(*p);
        while (&n % &p).is_zero() {
            n /= &p;
            factors.push(p.clone());
        }
    }
    factor_big(n, &mut factors);
    factors.sort();
    factors
}

const SMALL_PRIMES: &[u64] = &[2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97];

fn factor_u64(mut n: u64, out: &mut Vec<u64>) {
    for &p in SMALL_PRIMES {
        while n % p == 0 {
            out.push(p);
            n /= p;
        }
    }
    let mut stack = vec![n];
    while let Some(m) = stack.pop() {
        if m == 1 {
            continue;
        }
        if is_prime_u64(m) {
            out.push(m);
            continue;
        }
        let d = rho_u64(m);
        stack.push(d);
        stack.push(m / d);
    }
}

fn mul_mod(a: u64, b: u64, m: u64) -> u64 {
    ((a as u128 * b as u128) % m as u128) as u64
}

fn pow_mod(mut base: u64, mut exp: u64, m: u64) -> u64 {
    let mut result = 1u64;
    base %= m;
    while exp > 0 {
        if exp & 1 == 1 {
            result = mul_mod(result, base, m);
        }
        base = mul_mod(base, base, m);
        exp >>= 1;
    }
    result
}

/// Deterministic Miller–Rabin for 64-bit numbers.
fn is_prime_u64(n: u64) -> bool {
    if n < 2 {
        return false;
    }
    for &p in SMALL_PRIMES {
        if n % p == 0 {
            return n == p;
        }
    }
    let mut d = n - 1;
    let mut s = 0;
    while d % 2 == 0 {
        d /= 2;
        s += 1;
    }
    'bases: for &a in &[2u64, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37] {
        let mut x = pow_mod(a, d, n);
        if x == 1 || x == n - 1 {
            continue;
        }
        for _ in 1..s {
            x = mul_mod(x, x, n);
            if x == n - 1 {
                continue 'bases;
            }
        }
        return false;
    }
    true
}

fn gcd_u64(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        let t = a % b;
        a = b;
        b = t;
    }
    a
}

/// A non-trivial divisor of the composite `n` (Pollard–Brent).
fn rho_u64(n: u64) -> u64 {
    if n % 2 == 0 {
        return 2;
    }
    let mut c = 1u64;
    loop {
        let f = |x: u64| (mul_mod(x, x, n) + c) % n;
        let (mut x, mut y, mut d) = (2u64, 2u64, 1u64);
        let mut power = 1u64;
        let mut lam = 1u64;
        while d == 1 {
            if power == lam {
                x = y;
                power *= 2;
                lam = 0;
            }
            y = f(y);
            lam += 1;
            d = gcd_u64(if x > y { x - y } else { y - x }, n);
        }
        if d != n {
            return d;
        }
        c += 1;
    }
}

fn factor_big(n: BigUint, out: &mut Vec<BigUint>) {
    if n.is_one() {
        return;
    }
    if let Some(small) = n.to_u64() {
        let mut factors = Vec::new();
        factor_u64(small, &mut factors);
        out.extend(factors.into_iter().map(BigUint::from));
        return;
    }
    if is_probable_prime(&n) {
        out.push(n);
        return;
    }
    let d = rho_big(&n);
    let other = &n / &d;
    factor_big(d, out);
    factor_big(other, out);
}

/// Miller–Rabin with the first 24 prime bases (no known counterexample at these sizes
/// for the numbers people factor here).
fn is_probable_prime(n: &BigUint) -> bool {
    let one = BigUint::one();
    let n_minus_1 = n - &one;
    let mut d = n_minus_1.clone();
    let mut s = 0u32;
    while d.is_even() {
        d >>= 1;
        s += 1;
    }
    'bases: for &a in SMALL_PRIMES.iter().take(24) {
        let a = BigUint::from(a);
        if &a >= n {
            continue;
        }
        let mut x = a.modpow(&d, n);
        if x == one || x == n_minus_1 {
            continue;
        }
        for _ in 1..s {
            x = (&x * &x) % n;
            if x == n_minus_1 {
                continue 'bases;
            }
        }
        return false;
    }
    true
}

fn rho_big(n: &BigUint) -> BigUint {
    let mut c = BigUint::one();
    loop {
        let mut x = BigUint::from(2u32);
        let mut y = x.clone();
        let mut d = BigUint::one();
        let mut power = 1u64;
        let mut lam = 1u64;
        while d.is_one() {
            if power == lam {
                x = y.clone();
                power *= 2;
                lam = 0;
            }
            y = (&y * &y + &c) % n;
            lam += 1;
            let diff = if x > y { &x - &y } else { &y - &x };
            d = diff.gcd(n);
        }
        if &d != n {
            return d;
        }
        c += 1u32;
    }
}
