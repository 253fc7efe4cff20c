//! Myers' O(ND) search with GNU diff 3.8's midpoint split, diagonal vectors and heuristics
//! (the big-snake shortcut and giving up when too expensive), over the equivalence-class
//! sequences analyze.rs leaves after discarding; it marks the changed lines.

/// Marks in `changed` (indexed from 1, per file) the lines of `undiscarded` that the
/// search finds changed, `realindexes` giving each element's line.
pub(super) fn mark_changes(undiscarded: &[Vec<usize>; 2], realindexes: &[Vec<usize>; 2], minimal: bool, heuristic: bool, changed: &mut [Vec<bool>; 2]) {
    let mut diags = undiscarded[0].len() + undiscarded[1].len() + 3;
    let mut too_expensive: usize = 1;
    while diags != 0 {
        too_expensive <<= 1;
        diags >>= 2;
    }
    let mut search = Search {
        xv: &undiscarded[0],
        yv: &undiscarded[1],
        fd: vec![0; undiscarded[0].len() + undiscarded[1].len() + 3],
        bd: vec![0; undiscarded[0].len() + undiscarded[1].len() + 3],
        offset: undiscarded[1].len() as isize + 1,
        too_expensive: too_expensive.max(4096) as isize,
        heuristic,
    };
    search.compareseq(undiscarded[0].len() as isize, undiscarded[1].len() as isize, minimal, realindexes, changed);
}

/// The search's state: the two sequences and GNU's forward and backward diagonal vectors.
struct Search<'a> {
    xv: &'a [usize],
    yv: &'a [usize],
    fd: Vec<isize>,
    bd: Vec<isize>,
    offset: isize,
    too_expensive: isize,
    heuristic: bool,
}

struct Partition {
    xmid: isize,
    ymid: isize,
    lo_minimal: bool,
    hi_minimal: bool,
}

const SNAKE_LIMIT: isize = 20;

impl<'a> Search<'a> {
    fn eq(&self, x: isize, y: isize) -> bool {
        self.xv[x as usize] == self.yv[y as usize]
    }
    fn f(&self, d: isize) -> isize {
        self.fd[(d + self.offset) as usize]
    }
    fn b(&self, d: isize) -> isize {
        self.bd[(d + self.offset) as usize]
    }
    fn set_f(&mut self, d: isize, v: isize) {
        let k = (d + self.offset) as usize;
        self.fd[k] = v;
    }
    fn set_b(&mut self, d: isize, v: isize) {
        let k = (d + self.offset) as usize;
        self.bd[k] = v;
    }

    /// Marks the changed lines of the whole sequences. GNU recurses; an explicit stack
    /// keeps deep inputs within the wasm stack (the halves are independent).
    fn compareseq(&mut self, xlim: isize, ylim: isize, minimal: bool, real: &[Vec<usize>; 2], changed: &mut [Vec<bool>; 2]) {
        let mut stack = vec![(0isize, xlim, 0isize, ylim, minimal)];
        while let Some((mut xoff, mut xlim, mut yoff, mut ylim, find_minimal)) = stack.pop() {
            while xoff < xlim && yoff < ylim && self.eq(xoff, yoff) {
                xoff += 1;
                yoff += 1;
            }
            while xlim > xoff && ylim > yoff && self.eq(xlim - 1, ylim - 1) {
                xlim -= 1;
                ylim -= 1;
            }
            if xoff == xlim {
                for y in yoff..ylim {
                    changed[1][real[1][y as usize] + 1] = true;
                }
            } else if yoff == ylim {
                for x in xoff..xlim {
                    changed[0][real[0][x as usize] + 1] = true;
                }
            } else {
                let part = self.diag(xoff, xlim, yoff, ylim, find_minimal);
                stack.push((part.xmid, xlim, part.ymid, ylim, part.hi_minimal));
                stack.push((xoff, part.xmid, yoff, part.ymid, part.lo_minimal));
            }
        }
    }

    /// Finds the midpoint of the shortest edit script for one box (GNU's `diag`).
    fn diag(&mut self, xoff: isize, xlim: isize, yoff: isize, ylim: isize, find_minimal: bool) -> Partition {
        let dmin = xoff - ylim;
        let dmax = xlim - yoff;
        let fmid = xoff - yoff;
        let bmid = xlim - ylim;
        let (mut fmin, mut fmax, mut bmin, mut bmax) = (fmid, fmid, bmid, bmid);
        let odd = (fmid - bmid) & 1 != 0;
        self.set_f(fmid, xoff);
        self.set_b(bmid, xlim);
        let mut c: isize = 1;
        loop {
            let mut big_snake = false;
            if fmin > dmin {
                fmin -= 1;
                self.set_f(fmin - 1, -1);
            } else {
                fmin += 1;
            }
            if fmax < dmax {
                fmax += 1;
                self.set_f(fmax + 1, -1);
            } else {
                fmax -= 1;
            }
            let mut d = fmax;
            while d >= fmin {
                let (tlo, thi) = (self.f(d - 1), self.f(d + 1));
                let x0 = if tlo < thi { thi } else { tlo + 1 };
                let (mut x, mut y) = (x0, x0 - d);
                while x < xlim && y < ylim && self.eq(x, y) {
                    x += 1;
                    y += 1;
                }
                if x - x0 > SNAKE_LIMIT {
                    big_snake = true;
                }
                self.set_f(d, x);
                if odd && bmin <= d && d <= bmax && self.b(d) <= x {
                    return Partition { xmid: x, ymid: y, lo_minimal: true, hi_minimal: true };
                }
                d -= 2;
            }
            if bmin > dmin {
                bmin -= 1;
                self.set_b(bmin - 1, isize::MAX);
            } else {
                bmin += 1;
            }
            if bmax < dmax {
                bmax += 1;
                self.set_b(bmax + 1, isize::MAX);
            } else {
                bmax -= 1;
            }
            let mut d = bmax;
            while d >= bmin {
                let (tlo, thi) = (self.b(d - 1), self.b(d + 1));
                let x0 = if tlo < thi { tlo } else { thi - 1 };
                let (mut x, mut y) = (x0, x0 - d);
                while xoff < x && yoff < y && self.eq(x - 1, y - 1) {
                    x -= 1;
                    y -= 1;
                }
                if x0 - x > SNAKE_LIMIT {
                    big_snake = true;
                }
                self.set_b(d, x);
                if !odd && fmin <= d && d <= fmax && x <= self.f(d) {
                    return Partition { xmid: x, ymid: y, lo_minimal: true, hi_minimal: true };
                }
                d -= 2;
            }
            if !find_minimal {
                if c > 200 && big_snake && self.heuristic {
                    if let Some(part) = self.big_snake_heuristic(xoff, xlim, yoff, ylim, c, (fmin, fmax, fmid), (bmin, bmax, bmid)) {
                        return part;
                    }
                }
                if c >= self.too_expensive {
                    return self.give_up(xoff, xlim, yoff, ylim, (fmin, fmax), (bmin, bmax));
                }
            }
            c += 1;
        }
    }

    /// --speed-large-files: accept a diagonal that made much progress and ends in a snake.
    #[allow(clippy::too_many_arguments)]
    fn big_snake_heuristic(&self, xoff: isize, xlim: isize, yoff: isize, ylim: isize, c: isize, f: (isize, isize, isize), b: (isize, isize, isize)) -> Option<Partition> {
        let (fmin, fmax, fmid) = f;
        let (bmin, bmax, bmid) = b;
        let mut best = 0;
        let mut best_part = None;
        let mut d = fmax;
        while d >= fmin {
            let dd = d - fmid;
            let x = self.f(d);
            let y = x - d;
            let v = (x - xoff) * 2 - dd;
            if v > 12 * (c + dd.abs()) && v > best && xoff + SNAKE_LIMIT <= x && x < xlim && yoff + SNAKE_LIMIT <= y && y < ylim {
                let mut k = 1;
                while k <= SNAKE_LIMIT && self.eq(x - k, y - k) {
                    k += 1;
                }
                if k == SNAKE_LIMIT + 1 {
                    best = v;
                    best_part = Some(Partition { xmid: x, ymid: y, lo_minimal: true, hi_minimal: false });
                }
            }
            d -= 2;
        }
        if best_part.is_some() {
            return best_part;
        }
        best = 0;
        let mut d = bmax;
        while d >= bmin {
            let dd = d - bmid;
            let x = self.b(d);
            let y = x - d;
            let v = (xlim - x) * 2 + dd;
            if v > 12 * (c + dd.abs()) && v > best && xoff < x && x <= xlim - SNAKE_LIMIT && yoff < y && y <= ylim - SNAKE_LIMIT {
                let mut k = 0;
                while k < SNAKE_LIMIT && self.eq(x + k, y + k) {
                    k += 1;
                }
                if k == SNAKE_LIMIT {
                    best = v;
                    best_part = Some(Partition { xmid: x, ymid: y, lo_minimal: false, hi_minimal: true });
                }
            }
            d -= 2;
        }
        best_part
    }

    /// The search went on too long: split halfway between the best forward and backward
    /// reaches, as GNU does.
    fn give_up(&self, xoff: isize, xlim: isize, yoff: isize, ylim: isize, f: (isize, isize), b: (isize, isize)) -> Partition {
        let (mut fxybest, mut fxbest) = (-1isize, 0isize);
        let mut d = f.1;
        while d >= f.0 {
            let mut x = self.f(d).min(xlim);
            let mut y = x - d;
            if ylim < y {
                x = ylim + d;
                y = ylim;
            }
            if fxybest < x + y {
                fxybest = x + y;
                fxbest = x;
            }
            d -= 2;
        }
        let (mut bxybest, mut bxbest) = (isize::MAX, 0isize);
        let mut d = b.1;
        while d >= b.0 {
            let mut x = xoff.max(self.b(d));
            let mut y = x - d;
            if y < yoff {
                x = yoff + d;
                y = yoff;
            }
            if x + y < bxybest {
                bxybest = x + y;
                bxbest = x;
            }
            d -= 2;
        }
        if (xlim + ylim) - bxybest < fxybest - (xoff + yoff) {
            Partition { xmid: fxbest, ymid: fxybest - fxbest, lo_minimal: true, hi_minimal: false }
        } else {
            Partition { xmid: bxbest, ymid: bxybest - bxbest, lo_minimal: false, hi_minimal: true }
        }
    }
}
