//! rand()/srand() producing gawk's exact sequence: gawk ships its own `random()`, the BSD
//! additive feedback generator (x^63 + x + 1, seeded through the Park–Miller LCG) with a
//! 512-entry shuffle table on top, and builds each rand() from two draws. Scripts that
//! seed with srand(N) get the numbers gawk gives.

const DEGREE: usize = 63;
const SEPARATION: usize = 1;

const SHUFFLE: usize = 512;

pub struct Random {
    state: [u32; DEGREE],
    front: usize,
    rear: usize,
    seed: f64,
    shuffle: Vec<u32>,
    /// The shuffle table must be refilled before the next draw (after seeding).
    refill: bool,
    carry: u32,
}

fn good_rand(x: i32) -> i32 {
    // (16807 * x) mod (2^31 - 1) without overflow (Schrage's method).
    let x = if x == 0 { 123459876 } else { x };
    let hi = x / 127773;
    let lo = x % 127773;
    let mut x = 16807 * lo - 2836 * hi;
    if x < 0 {
        x += 0x7fffffff;
    }
    x
}

impl Random {
    pub fn new() -> Random {
        let mut r = Random { state: [0; DEGREE], front: SEPARATION, rear: 0, seed: 1.0, shuffle: vec![0; SHUFFLE], refill: true, carry: 0 };
        r.seed_with(1);
        r
    }

    fn seed_with(&mut self, x: u32) {
        self.refill = true;
        self.state[0] = x;
        for i in 1..DEGREE {
            self.state[i] = good_rand(self.state[i - 1] as i32) as u32;
        }
        self.front = SEPARATION;
        self.rear = 0;
        for _ in 0..10 * DEGREE {
            self.next();
        }
    }

    /// One draw through the shuffle table.
    fn next(&mut self) -> u32 {
        if self.refill {
            for k in 0..SHUFFLE {
                self.shuffle[k] = self.raw();
            }
            self.carry = self.raw();
            self.refill = false;
        }
        let r = self.raw();
        let k = self.carry as usize & (SHUFFLE - 1);
        self.carry = self.shuffle[k];
        self.shuffle[k] = r;
        self.carry
    }

    fn raw(&mut self) -> u32 {
        self.state[self.front] = self.state[self.front].wrapping_add(self.state[self.rear]);
        let value = (self.state[self.front] >> 1) & 0x7fffffff;
        self.front += 1;
        if self.front >= DEGREE {
            self.front = 0;
            self.rear += 1;
        } else {
            self.rear += 1;
            if self.rear >= DEGREE {
                self.rear = 0;
            }
        }
        value
    }

    /// A number in [0, 1).
    pub fn rand(&mut self) -> f64 {
        const DIVISOR: f64 = 2147483648.0;
        loop {
            let d1 = self.next() as f64;
            let d2 = self.next() as f64;
            let r = 0.5 + ((d1 / DIVISOR + d2) / DIVISOR) - 0.5;
            if r != 1.0 {
                return r;
            }
        }
    }

    /// The seed given to the last srand() (1 before any, as in gawk).
    pub fn seed(&self) -> f64 {
        self.seed
    }

    pub fn srand(&mut self, seed: f64) {
        self.seed = seed.trunc();
        let x = if seed.is_finite() { seed as i64 as u32 } else { 0 };
        self.seed_with(x);
    }
}

impl Default for Random {
    fn default() -> Self {
        Random::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_gawk_sequence() {
        let mut r = Random::new();
        assert_eq!(format!("{:.6}", r.rand()), "0.924046");
        assert_eq!(format!("{:.6}", r.rand()), "0.593909");
        r.srand(1.0);
        assert_eq!(format!("{:.6}", r.rand()), "0.924046");
        r.srand(5.0);
        r.srand(7.0);
        assert_eq!(format!("{:.6}", r.rand()), "0.112895");
    }
}
