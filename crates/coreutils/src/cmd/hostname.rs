//! `hostname` (Debian's): prints the host name, or forms of it (`-s` short, `-f` FQDN,
//! `-d` domain, `-i`/`-I` addresses from /etc/hosts). The sandbox's name comes from
//! /etc/hostname and cannot be changed: setting it is refused as for a non-root user.

use std::ffi::OsString;

use common::args::{ArgError, Command, Parsed, UsageError};
use common::{Io, UError};

const SPEC: &str = "alias,a all-fqdns,A boot,b domain,d fqdn,f fqdn=long file,F: ip-address,i all-ip-addresses,I short,s nis=y,yp nis version,V help,h";

const USAGE: &str = "Usage: hostname [-b] {hostname|-F file}         set host name (from file)\n       hostname [-a|-A|-d|-f|-i|-I|-s|-y]       display formatted name\n       hostname                                 display host name\n\n       {yp,nis,}domainname {nisdomain|-F file}  set NIS domain name (from file)\n       {yp,nis,}domainname                      display NIS domain name\n\n       dnsdomainname                            display dns domain name\n\n       hostname -V|--version|-h|--help          print info and exit\n\nProgram name:\n       {yp,nis,}domainname=hostname -y\n       dnsdomainname=hostname -d\n\nProgram options:\n    -a, --alias            alias names\n    -A, --all-fqdns        all long host names (FQDNs)\n    -b, --boot             set default hostname if none available\n    -d, --domain           DNS domain name\n    -f, --fqdn, --long     long host name (FQDN)\n    -F, --file             read host name or NIS domain name from given file\n    -i, --ip-address       addresses for the host name\n    -I, --all-ip-addresses all addresses for the host\n    -s, --short            short host name\n    -y, --yp, --nis        NIS/YP domain name\n\nDescription:\n   This command can get or set the host name or the NIS domain name. You can\n   also get the DNS domain or the FQDN (fully qualified domain name).\n   Unless you are using bind or NIS for host lookups you can change the\n   FQDN (Fully Qualified Domain Name) and the DNS domain name (which is\n   part of the FQDN) in the /etc/hosts file.\n";

/// Debian's hostname answers a bad option with its usage on stdout, status 255.
fn usage_error(io: &mut Io, error: ArgError) -> UError {
    io.error(error);
    let _ = io.out(USAGE.as_bytes());
    UError::exit(255)
}

const HOSTNAME: Command = Command { usage_error: Some(UsageError(usage_error)), ..Command::compact("hostname", SPEC, USAGE) };

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let mut mode = "";
    let mut set = false;
    let mut operands = 0;
    for item in HOSTNAME.parse(&args, io)? {
        match item {
            Parsed::Opt { id: "file", .. } | Parsed::Opt { id: "boot", .. } => set = true,
            Parsed::Opt { id, .. } => mode = id,
            Parsed::Operand(_) => {
                operands += 1;
                set = true;
            }
        }
    }
    if operands > 1 {
        let _ = io.out(USAGE.as_bytes());
        return Ok(255);
    }
    if set {
        return Err(UError::new(1, "you must be root to change the host name"));
    }
    let name = host_name();
    let line = match mode {
        "short" => name.split('.').next().unwrap_or("").to_string(),
        "domain" => name.split_once('.').map(|(_, d)| d.to_string()).unwrap_or_default(),
        "alias" => String::new(),
        "ip-address" | "all-ip-addresses" => {
            let addresses = addresses_of(&name);
            if addresses.is_empty() {
                return Err(UError::new(1, "Name or service not known"));
            }
            addresses.join(" ")
        }
        "nis" => return Err(UError::new(1, "Local domain name not set")),
        _ => name,
    };
    let _ = io.out(format!("{}\n", line).as_bytes());
    Ok(0)
}

fn host_name() -> String {
    let path = if cfg!(target_os = "wasi") { "/etc/hostname" } else { "/proc/sys/kernel/hostname" };
    std::fs::read_to_string(path).ok().and_then(|t| t.lines().next().map(|l| l.trim().to_string())).unwrap_or_else(|| "localhost".to_string())
}

/// The addresses /etc/hosts gives for `name`, in file order.
fn addresses_of(name: &str) -> Vec<String> {
    let text = std::fs::read_to_string("/etc/hosts").unwrap_or_default();
    let mut out: Vec<String> = Vec::new();
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or("");
        let mut fields = line.split_whitespace();
        if let Some(address) = fields.next() {
            if fields.any(|f| f == name) && !out.iter().any(|a| a == address) {
                out.push(address.to_string());
            }
        }
    }
    out
}
