//! `:`, `true`, `false`.

use super::done;
use crate::exec::Flow;
use crate::shell::Shell;

pub fn colon(shell: &mut Shell, _args: &[String]) -> Flow {
    done(shell, 0)
}

pub fn true_(shell: &mut Shell, _args: &[String]) -> Flow {
    done(shell, 0)
}

pub fn false_(shell: &mut Shell, _args: &[String]) -> Flow {
    done(shell, 1)
}
