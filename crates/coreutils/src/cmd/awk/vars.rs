//! The special variables' fixed global slots. Slots below `SPECIAL` are scalars whose reads
//! or writes have side effects (NF splits the record, FS changes the splitter, …); the
//! arrays ENVIRON, ARGV and PROCINFO come right after as ordinary globals.

pub const NF: u32 = 0;
pub const NR: u32 = 1;
pub const FNR: u32 = 2;
pub const FS: u32 = 3;
pub const OFS: u32 = 4;
pub const ORS: u32 = 5;
pub const RS: u32 = 6;
pub const SUBSEP: u32 = 7;
pub const CONVFMT: u32 = 8;
pub const OFMT: u32 = 9;
pub const RSTART: u32 = 10;
pub const RLENGTH: u32 = 11;
pub const FILENAME: u32 = 12;
pub const RT: u32 = 13;
pub const FIELDWIDTHS: u32 = 14;
pub const FPAT: u32 = 15;
pub const IGNORECASE: u32 = 16;
pub const ARGC: u32 = 17;
pub const ERRNO: u32 = 18;
/// Slots below this have hooks.
pub const SPECIAL: u32 = 19;
pub const ENVIRON: u32 = 19;
pub const ARGV: u32 = 20;
pub const PROCINFO: u32 = 21;

/// Names in slot order.
pub const NAMES: [&str; 22] = [
    "NF", "NR", "FNR", "FS", "OFS", "ORS", "RS", "SUBSEP", "CONVFMT", "OFMT", "RSTART", "RLENGTH", "FILENAME", "RT", "FIELDWIDTHS", "FPAT",
    "IGNORECASE", "ARGC", "ERRNO", "ENVIRON", "ARGV", "PROCINFO",
];
