//! Which machine and process this is, for lease holders: a holder is judged gone only when it
//! ran on this very boot of this machine (`/proc/sys/kernel/random/boot_id`) and its pid is not
//! alive here. A host name alone does not say that: containers and cluster nodes share names,
//! and a rebooted machine reuses pids. The host name is kept for people.

/// This machine's host name ("" when unknown). For display only.
pub fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .map(|h| h.trim().to_string())
        .unwrap_or_default()
}

/// The local user this process runs as, for what a file store records as a run's owner: the
/// account name of the real uid (from `/etc/passwd`), else `uid N`, else `$USER`. The uid
/// decides rather than `$USER`, which any caller sets.
pub(crate) fn user_name() -> String {
    let uid = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("Uid:"))
                .and_then(|l| l.split_whitespace().next().map(str::to_string))
        });
    let Some(uid) = uid else {
        return std::env::var("USER").unwrap_or_default();
    };
    std::fs::read_to_string("/etc/passwd")
        .ok()
        .and_then(|p| {
            p.lines().find_map(|l| {
                let f: Vec<&str> = l.split(':').collect();
                (f.len() > 2 && f[2] == uid).then(|| f[0].to_string())
            })
        })
        .unwrap_or_else(|| format!("uid {uid}"))
}

/// This boot of this machine's kernel (a random UUID drawn at boot; "" when unreadable).
pub fn boot_id() -> String {
    std::fs::read_to_string("/proc/sys/kernel/random/boot_id")
        .map(|b| b.trim().to_string())
        .unwrap_or_default()
}

/// What a lease records as its holder's machine: the host name for people and the boot id
/// that decides (`lab-3 boot 0f3c…`). Two machines with one host name differ by boot id.
pub fn machine_of(host: &str, boot: &str) -> String {
    format!("{host} boot {boot}")
}

/// [`machine_of`] this machine.
pub fn this_machine() -> String {
    machine_of(&host_name(), &boot_id())
}

/// True while process `pid` of this machine runs (not a zombie).
pub fn pid_alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/status")) {
        Ok(s) => !s
            .lines()
            .any(|l| l.starts_with("State:") && l.contains('Z')),
        Err(_) => false,
    }
}

impl crate::LeaseHolder {
    /// True when this holder ran on this boot of this machine and its process is gone (killed,
    /// crashed): its lease may be broken at once instead of after it expires. A holder whose
    /// machine cannot be told (no boot id) is never judged gone.
    pub fn is_gone_here(&self) -> bool {
        let boot = boot_id();
        !boot.is_empty() && self.host == machine_of(&host_name(), &boot) && !pid_alive(self.pid)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::LeaseHolder;

    /// A pid no process has (above the kernel's maximum).
    const DEAD_PID: u32 = 4_194_305;

    #[test]
    fn a_holder_with_this_host_name_on_another_boot_keeps_its_lease() {
        // Two holders named alike: a container or node with the same host name, whose pid
        // means nothing here. Judging by host name + pid broke the live one's lease.
        let elsewhere = LeaseHolder {
            name: "crucible worker (pid 7 on host lab-3)".into(),
            pid: DEAD_PID,
            host: machine_of(&host_name(), "another-boot-id"),
        };
        assert!(!elsewhere.is_gone_here());
        // The same pid on this very boot is gone.
        let here = LeaseHolder {
            host: this_machine(),
            ..elsewhere.clone()
        };
        assert!(here.is_gone_here());
        // A live process on this boot is not.
        let me = LeaseHolder {
            pid: std::process::id(),
            ..here
        };
        assert!(!me.is_gone_here());
    }
}
