//! The job table: background jobs started with `&` (for `jobs`, `wait`, `%n`), and
//! process substitutions, which are waited for but not listed.

#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    pub id: u32,
    pub pids: Vec<u32>,
    pub command: String,
    /// Exit status once finished.
    pub status: Option<i32>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Jobs {
    pub list: Vec<Job>,
    /// Process substitutions and other children nobody lists.
    pub hidden: Vec<u32>,
    /// Statuses of reaped children `wait PID` may still ask for.
    pub reaped: Vec<(u32, i32)>,
}

impl Jobs {
    pub fn add(&mut self, pids: Vec<u32>, command: String) -> u32 {
        let id = self.list.iter().map(|j| j.id).max().unwrap_or(0) + 1;
        self.list.push(Job { id, pids, command, status: None });
        id
    }

    pub fn add_hidden(&mut self, pid: u32) {
        self.hidden.push(pid);
    }

    /// Records that `pid` ended.
    pub fn mark_done(&mut self, pid: u32, status: i32) {
        for job in self.list.iter_mut() {
            if job.pids.last() == Some(&pid) {
                job.status = Some(status);
            }
        }
        self.hidden.retain(|&p| p != pid);
        self.reaped.push((pid, status));
        if self.reaped.len() > 1024 {
            self.reaped.remove(0);
        }
    }

    /// The job a `%spec` names: `%1`, `%%`, `%+`, `%-`, `%name`, `%?text`.
    pub fn find(&self, spec: &str) -> Option<&Job> {
        let body = spec.strip_prefix('%')?;
        match body {
            "" | "%" | "+" => self.list.last(),
            "-" => self.list.iter().rev().nth(1).or_else(|| self.list.last()),
            _ => {
                if let Ok(id) = body.parse::<u32>() {
                    return self.list.iter().find(|j| j.id == id);
                }
                if let Some(text) = body.strip_prefix('?') {
                    return self.list.iter().find(|j| j.command.contains(text));
                }
                self.list.iter().find(|j| j.command.starts_with(body))
            }
        }
    }

    pub fn by_pid(&self, pid: u32) -> Option<&Job> {
        self.list.iter().find(|j| j.pids.contains(&pid))
    }

    pub fn remove(&mut self, id: u32) {
        self.list.retain(|j| j.id != id);
    }

    /// `+` for the current job, `-` for the previous one, as `jobs` marks them.
    pub fn marker(&self, id: u32) -> char {
        let n = self.list.len();
        if n > 0 && self.list[n - 1].id == id {
            '+'
        } else if n > 1 && self.list[n - 2].id == id {
            '-'
        } else {
            ' '
        }
    }
}
