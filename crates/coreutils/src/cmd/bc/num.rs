//! bc numbers: arbitrary-precision decimals (an integer and a count of fraction digits)
//! with GNU bc's scale rules: `+ -` keep the larger scale, `*` keeps
//! min(a+b, max(scale, a, b)), `/` has `scale` digits, `%` is `a - (a/b)*b` at
//! max(a, b+scale), `^` is exact and then cut to min(a*n, max(scale, a)); every result is
//! truncated, never rounded. `sqrt` repeats bc's Newton iteration so the last digit agrees.

use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{One, Signed, ToPrimitive, Zero};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Num {
    /// The value times 10^scale.
    pub v: BigInt,
    pub scale: usize,
}

fn pow10(n: usize) -> BigInt {
    num_traits::pow(BigInt::from(10), n)
}

impl Num {
    pub fn zero() -> Num {
        Num { v: BigInt::zero(), scale: 0 }
    }
    pub fn int(n: i64) -> Num {
        Num { v: BigInt::from(n), scale: 0 }
    }
    pub fn is_zero(&self) -> bool {
        self.v.is_zero()
    }
    pub fn is_negative(&self) -> bool {
        self.v.is_negative()
    }

    /// The same value with exactly `scale` fraction digits (truncating or extending).
    pub fn with_scale(&self, scale: usize) -> Num {
        let v = if scale >= self.scale { &self.v * pow10(scale - self.scale) } else { &self.v / pow10(self.scale - scale) };
        Num { v, scale }
    }

    /// Parses a numeral in `ibase`: a single digit keeps its value (A = 10 even in base
    /// 10); in longer numerals a digit ≥ ibase counts as ibase-1. The scale is the number
    /// of fraction digits written.
    pub fn parse(text: &[u8], ibase: u32) -> Num {
        let digit = |c: u8| match c {
            b'0'..=b'9' => (c - b'0') as u32,
            b'A'..=b'Z' => (c - b'A') as u32 + 10,
            _ => 0,
        };
        let single = text.iter().filter(|c| **c != b'.').count() == 1;
        let clamp = |d: u32| if single || d < ibase { d } else { ibase - 1 };
        let (int_part, frac_part) = match text.iter().position(|c| *c == b'.') {
            Some(p) => (&text[..p], &text[p + 1..]),
            None => (text, &text[..0]),
        };
        let mut v = BigInt::zero();
        for c in int_part {
            v = v * ibase + clamp(digit(*c));
        }
        let scale = frac_part.len();
        if scale == 0 {
            return Num { v, scale: 0 };
        }
        if ibase == 10 {
            for c in frac_part {
                v = v * 10u32 + clamp(digit(*c));
            }
            return Num { v, scale };
        }
        // value = int + frac_digits / ibase^n, kept to `scale` decimal digits.
        let mut frac = BigInt::zero();
        for c in frac_part {
            frac = frac * ibase + clamp(digit(*c));
        }
        let denominator = num_traits::pow(BigInt::from(ibase), frac_part.len());
        let f = frac * pow10(scale) / denominator;
        Num { v: v * pow10(scale) + f, scale }
    }

    pub fn add(&self, o: &Num) -> Num {
        let s = self.scale.max(o.scale);
        Num { v: self.with_scale(s).v + o.with_scale(s).v, scale: s }
    }
    pub fn sub(&self, o: &Num) -> Num {
        let s = self.scale.max(o.scale);
        Num { v: self.with_scale(s).v - o.with_scale(s).v, scale: s }
    }
    pub fn neg(&self) -> Num {
        Num { v: -&self.v, scale: self.scale }
    }
    pub fn mul(&self, o: &Num, scale: usize) -> Num {
        let full = self.scale + o.scale;
        let s = full.min(scale.max(self.scale).max(o.scale));
        Num { v: &self.v * &o.v, scale: full }.with_scale(s)
    }
    /// None: division by zero.
    pub fn div(&self, o: &Num, scale: usize) -> Option<Num> {
        if o.is_zero() {
            return None;
        }
        let numerator = &self.v * pow10(scale + o.scale);
        let denominator = &o.v * pow10(self.scale);
        Some(Num { v: numerator / denominator, scale })
    }
    pub fn rem(&self, o: &Num, scale: usize) -> Option<Num> {
        let q = self.div(o, scale)?;
        let rscale = self.scale.max(o.scale + scale);
        let r = self.sub(&q.mul(o, rscale));
        Some(if r.scale < rscale { r.with_scale(rscale) } else { r })
    }

    /// `self ^ exponent` (an integer); None when a negative power of zero is asked.
    pub fn pow(&self, exponent: i64, scale: usize) -> Option<Num> {
        if exponent == 0 {
            return Some(Num::int(1));
        }
        let n = exponent.unsigned_abs();
        let exact = Num { v: num_traits::pow(self.v.clone(), n as usize), scale: self.scale.saturating_mul(n as usize) };
        if exponent < 0 {
            return Num::int(1).div(&exact, scale);
        }
        let rscale = (self.scale.saturating_mul(n as usize)).min(scale.max(self.scale));
        Some(if exact.scale > rscale { exact.with_scale(rscale) } else { exact })
    }

    /// bc's square root (None for a negative number).
    pub fn sqrt(&self, scale: usize) -> Option<Num> {
        if self.is_negative() {
            return None;
        }
        let rscale = scale.max(self.scale);
        if self.is_zero() {
            return Some(Num { v: BigInt::zero(), scale: rscale });
        }
        let one = Num::int(1);
        if *self == one.with_scale(self.scale) {
            return Some(one);
        }
        let half = Num { v: BigInt::from(5), scale: 1 };
        let (mut guess, mut cscale) = if self.cmp_num(&one) == std::cmp::Ordering::Less {
            (one.clone(), self.scale)
        } else {
            (Num::int(10).pow((self.int_digits() / 2) as i64, 0)?, 3)
        };
        loop {
            let previous = guess.clone();
            guess = self.div(&guess, cscale)?;
            guess = guess.add(&previous);
            guess = guess.mul(&half, cscale);
            let diff = guess.sub(&previous);
            let diff = if diff.scale < cscale + 1 { diff.with_scale(cscale + 1) } else { diff };
            if diff.near_zero(cscale) {
                if cscale < rscale + 1 {
                    cscale = (cscale * 3).min(rscale + 1);
                } else {
                    break;
                }
            }
        }
        guess.div(&one, rscale)
    }

    /// bc_is_near_zero: zero or one unit in the last place at `scale` digits.
    fn near_zero(&self, scale: usize) -> bool {
        let s = scale.min(self.scale);
        let t = self.with_scale(s).v.abs();
        t.is_zero() || t.is_one()
    }

    /// Digits before the point (at least 1).
    pub fn int_digits(&self) -> usize {
        let int = (&self.v / pow10(self.scale)).abs();
        if int.is_zero() {
            1
        } else {
            int.to_string().len()
        }
    }

    /// bc's length(): significant digits.
    pub fn length(&self) -> usize {
        if self.is_zero() {
            return 1;
        }
        let digits = self.v.abs().to_string().len();
        digits.max(self.scale)
    }

    pub fn cmp_num(&self, o: &Num) -> std::cmp::Ordering {
        let s = self.scale.max(o.scale);
        self.with_scale(s).v.cmp(&o.with_scale(s).v)
    }

    /// The integer part as i64 (saturating), as bc converts for scale, ibase, subscripts.
    pub fn to_i64(&self) -> i64 {
        let int = &self.v / pow10(self.scale);
        int.to_i64().unwrap_or(if int.is_negative() { i64::MIN } else { i64::MAX })
    }

    /// The digits in `obase` as bc prints them (without line wrapping).
    pub fn to_text(&self, obase: u32) -> Vec<u8> {
        let mut out = Vec::new();
        if self.is_zero() {
            out.push(b'0');
            return out;
        }
        if self.is_negative() {
            out.push(b'-');
        }
        let abs = Num { v: self.v.abs(), scale: self.scale };
        if obase == 10 {
            let digits = abs.v.to_string();
            let (int, frac) = if digits.len() > abs.scale { digits.split_at(digits.len() - abs.scale) } else { ("", digits.as_str()) };
            out.extend_from_slice(int.as_bytes());
            if abs.scale > 0 {
                out.push(b'.');
                out.extend(std::iter::repeat(b'0').take(abs.scale - frac.len()));
                out.extend_from_slice(frac.as_bytes());
            }
            return out;
        }
        let width = (obase - 1).to_string().len();
        let push_digit = |out: &mut Vec<u8>, d: u32, space: bool| {
            if obase <= 16 {
                out.push(b"0123456789ABCDEF"[d as usize]);
            } else {
                if space {
                    out.push(b' ');
                }
                out.extend_from_slice(format!("{:0w$}", d, w = width).as_bytes());
            }
        };
        let unit = pow10(abs.scale);
        let (mut int, mut frac) = abs.v.div_rem(&unit);
        let mut digits = Vec::new();
        let base = BigInt::from(obase);
        while !int.is_zero() {
            let (q, r) = int.div_rem(&base);
            digits.push(r.to_u32().unwrap_or(0));
            int = q;
        }
        for d in digits.iter().rev() {
            push_digit(&mut out, *d, true);
        }
        if abs.scale > 0 {
            out.push(b'.');
            let mut place = BigInt::one();
            let mut first = true;
            while place.to_string().len() <= abs.scale {
                frac *= obase;
                let (d, r) = frac.div_rem(&unit);
                push_digit(&mut out, d.to_u32().unwrap_or(0), !first);
                first = false;
                frac = r;
                place *= obase;
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(s: &str) -> Num {
        Num::parse(s.as_bytes(), 10)
    }
    fn t(x: &Num) -> String {
        String::from_utf8(x.to_text(10)).unwrap()
    }

    #[test]
    fn arithmetic() {
        assert_eq!(t(&n("5").rem(&n("3"), 2).unwrap()), ".02");
        assert_eq!(t(&n("10").div(&n("3"), 4).unwrap().mul(&n("3"), 4)), "9.9999");
        assert_eq!(t(&n("2").sqrt(5).unwrap()), "1.41421");
        assert_eq!(t(&n("2").sqrt(3).unwrap().mul(&n("2").sqrt(3).unwrap(), 3)), "1.999");
        assert_eq!(t(&n("1.5").pow(3, 3).unwrap()), "3.375");
        assert_eq!(t(&n("0.5").neg()), "-.5");
        assert_eq!(String::from_utf8(n("12345.678").to_text(20)).unwrap(), " 01 10 17 05.13 11 04");
        assert_eq!(String::from_utf8(Num::parse(b"FF.F", 16).to_text(16)).unwrap(), "FF.E");
        assert_eq!(t(&Num::parse(b"1A", 10)), "19");
    }
}
