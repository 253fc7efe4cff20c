//! `cmd &`: a background job in its own process group, recorded in the job table.

use std::rc::Rc;

use shell_parser::ast::{AndOr, Command, List, ListItem};

use super::child::Task;
use super::Flow;
use crate::io::{SavedFds, Target};
use crate::shell::Shell;

impl Shell {
    #[inline(never)]
    pub(crate) fn exec_background(&mut self, and_or: &AndOr) -> Flow {
        let text = shell_parser::printer::and_or_to_string(and_or);
        // Without job control, a background job's input is /dev/null unless redirected.
        let mut saved = SavedFds::default();
        let devnull = self.sys.open("/dev/null", crate::sys::OpenFlags::read_only(), 0).ok();
        if let Some(fd) = devnull {
            self.fds.set_saving(0, Some(Target::Real(fd)), &mut saved);
        }
        let task = match single_command(and_or) {
            Some(command) => Task::Command(command.clone()),
            None => Task::List(Rc::new(List { items: vec![ListItem { and_or: and_or.clone(), background: false }] })),
        };
        let spawned = self.spawn_child(&task, true);
        self.fds.restore(self.sys.as_mut(), saved);
        match spawned {
            Ok(pid) => {
                self.last_bg_pid = Some(pid);
                self.jobs.add(vec![pid], text);
                self.status = 0;
            }
            Err(error) => {
                self.report(&format!("fork: {}", error));
                self.status = 1;
            }
        }
        Flow::Normal
    }
}

fn single_command(and_or: &AndOr) -> Option<&Command> {
    if !and_or.rest.is_empty() || and_or.first.commands.len() != 1 || and_or.first.negated || and_or.first.timed.is_some() {
        return None;
    }
    and_or.first.commands.first()
}
