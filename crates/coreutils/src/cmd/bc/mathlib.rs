//! The `-l` math library: sine, cosine, arctangent, natural logarithm, exponential and
//! Bessel functions. Each follows the same series, argument reduction and working scales
//! as GNU bc's library (which is written in bc), step by step with bc's truncating
//! arithmetic, so results agree to the last digit.

use super::num::Num;

fn n(text: &str) -> Num {
    Num::parse(text.as_bytes(), 10)
}
fn int(v: i64) -> Num {
    Num::int(v)
}
fn div(a: &Num, b: &Num, scale: usize) -> Num {
    a.div(b, scale).unwrap_or_else(Num::zero)
}
/// A value assigned to `scale`: its integer part.
fn as_scale(v: &Num) -> usize {
    v.to_i64().max(0) as usize
}

/// e^x: halve x until it is at most 1, sum the Taylor series, square back.
pub fn exp(x: Num, z: usize) -> Num {
    let negative = x.is_negative();
    let mut x = if negative { x.neg() } else { x };
    let limit = int(6).add(&int(z as i64)).add(&n(".44").mul(&x, z));
    let mut scale = x.scale + 1;
    let mut halvings = 0;
    while x.cmp_num(&int(1)) == std::cmp::Ordering::Greater {
        halvings += 1;
        x = div(&x, &int(2), scale);
        scale += 1;
    }
    let scale = as_scale(&limit);
    let mut v = int(1).add(&x);
    let (mut a, mut d) = (x.clone(), int(1));
    let mut i = 2;
    loop {
        a = a.mul(&x, scale);
        d = d.mul(&int(i), scale);
        let e = div(&a, &d, scale);
        if e.is_zero() {
            for _ in 0..halvings {
                v = v.mul(&v, scale);
            }
            return if negative { div(&int(1), &v, z) } else { div(&v, &int(1), z) };
        }
        v = v.add(&e);
        i += 1;
    }
}

/// ln x: square roots bring x into (.5, 2), then 2(a + a^3/3 + ...) with a = (x-1)/(x+1).
pub fn ln(x: Num, z: usize) -> Num {
    if x.cmp_num(&Num::zero()) != std::cmp::Ordering::Greater {
        let big = int(10).pow(z as i64, z).unwrap_or_else(Num::zero);
        return div(&int(1).sub(&big), &int(1), z);
    }
    let scale = 6 + z;
    let mut f = int(2);
    let mut x = x;
    while x.cmp_num(&int(2)) != std::cmp::Ordering::Less {
        f = f.mul(&int(2), scale);
        x = x.sqrt(scale).unwrap_or_else(Num::zero);
    }
    while x.cmp_num(&n(".5")) != std::cmp::Ordering::Greater {
        f = f.mul(&int(2), scale);
        x = x.sqrt(scale).unwrap_or_else(Num::zero);
    }
    let mut term = div(&x.sub(&int(1)), &x.add(&int(1)), scale);
    let mut v = term.clone();
    let m = term.mul(&term, scale);
    let mut i = 3;
    loop {
        term = term.mul(&m, scale);
        let e = div(&term, &int(i), scale);
        if e.is_zero() {
            return div(&f.mul(&v, scale), &int(1), z);
        }
        v = v.add(&e);
        i += 2;
    }
}

/// sin x: reduce by multiples of pi/2 (from atan(1)), then the Taylor series.
pub fn sin(x: Num, z: usize) -> Num {
    let scale = as_scale(&n("1.1").mul(&int(z as i64), z).add(&int(2)));
    let quarter_pi = atan(int(1), scale);
    let negative = x.is_negative();
    let mut x = if negative { x.neg() } else { x };
    let k = div(&div(&x, &quarter_pi, 0).add(&int(2)), &int(4), 0);
    x = x.sub(&int(4).mul(&k, 0).mul(&quarter_pi, 0));
    if !k.rem(&int(2), 0).unwrap_or_else(Num::zero).is_zero() {
        x = x.neg();
    }
    let scale = z + 2;
    let mut v = x.clone();
    let mut e = x.clone();
    let s = x.neg().mul(&x, scale);
    let mut i: i64 = 3;
    loop {
        e = e.mul(&div(&s, &int(i * (i - 1)), scale), scale);
        if e.is_zero() {
            return if negative { div(&v.neg(), &int(1), z) } else { div(&v, &int(1), z) };
        }
        v = v.add(&e);
        i += 2;
    }
}

/// cos x = sin(x + pi/2), at 1.2 times the scale.
pub fn cos(x: Num, z: usize) -> Num {
    let scale = as_scale(&int(z as i64).mul(&n("1.2"), z));
    let shifted = x.add(&atan(int(1), scale).mul(&int(2), scale));
    div(&sin(shifted, scale), &int(1), z)
}

/// atan x: atan(x) = atan(.2) + atan((x-.2)/(1+.2x)) until x <= .2, then the series.
pub fn atan(x: Num, z: usize) -> Num {
    let negative = x.is_negative();
    let m = int(if negative { -1 } else { 1 });
    let mut x = if negative { x.neg() } else { x };
    let known = |digits: [&str; 3]| -> Option<Num> {
        let pick = if z <= 25 { 0 } else if z <= 40 { 1 } else if z <= 60 { 2 } else { return None };
        Some(div(&n(digits[pick]), &m, z))
    };
    if x == int(1).with_scale(x.scale) {
        if let Some(v) = known([".7853981633974483096156608", ".7853981633974483096156608458198757210492", ".785398163397448309615660845819875721049292349843776455243736"]) {
            return v;
        }
    }
    if x.cmp_num(&n(".2")) == std::cmp::Ordering::Equal {
        if let Some(v) = known([".1973955598498807583700497", ".1973955598498807583700497651947902934475", ".197395559849880758370049765194790293447585103787852101517688"]) {
            return v;
        }
    }
    let fifth = n(".2");
    let mut atan_fifth = Num::zero();
    if x.cmp_num(&fifth) == std::cmp::Ordering::Greater {
        atan_fifth = atan(fifth.clone(), z + 5);
    }
    let scale = z + 3;
    let mut f = 0;
    while x.cmp_num(&fifth) == std::cmp::Ordering::Greater {
        f += 1;
        x = div(&x.sub(&fifth), &int(1).add(&x.mul(&fifth, scale)), scale);
    }
    let mut v = x.clone();
    let mut term = x.clone();
    let s = x.neg().mul(&x, scale);
    let mut i = 3;
    loop {
        term = term.mul(&s, scale);
        let e = div(&term, &int(i), scale);
        if e.is_zero() {
            return div(&int(f).mul(&atan_fifth, z).add(&v), &m, z);
        }
        v = v.add(&e);
        i += 2;
    }
}

/// The Bessel function of integer order n: x^n/(2^n n!) times its power series.
pub fn bessel(order: Num, x: Num, z: usize) -> Num {
    let mut order = div(&order, &int(1), 0);
    let mut negate = false;
    if order.is_negative() {
        order = order.neg();
        negate = order.rem(&int(2), 0).map_or(false, |r| r == int(1));
    }
    let k = order.to_i64();
    let mut f = int(1);
    for i in 2..=k {
        f = f.mul(&int(i), 0);
    }
    let scale = as_scale(&n("1.5").mul(&int(z as i64), 0));
    let xn = x.pow(k, scale).unwrap_or_else(Num::zero);
    let two_n = int(2).pow(k, scale).unwrap_or_else(Num::zero);
    f = div(&div(&xn, &two_n, scale), &f, scale);
    let mut v = int(1);
    let mut e = int(1);
    let s = div(&x.neg().mul(&x, scale), &int(4), scale);
    let scale = as_scale(&n("1.5").mul(&int(z as i64), scale).add(&int(f.length() as i64)).sub(&int(f.scale as i64)));
    let mut i = 1;
    loop {
        e = div(&div(&e.mul(&s, scale), &int(i), scale), &order.add(&int(i)), scale);
        if e.is_zero() {
            let fv = if negate { f.neg() } else { f };
            return div(&fv.mul(&v, z), &int(1), z);
        }
        v = v.add(&e);
        i += 1;
    }
}
