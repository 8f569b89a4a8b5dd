//! CPU and memory figures for the dock (`appearance.show_cpu`, `appearance.show_ram`), read from
//! `/proc` on the client's machine. Sampled at most every [`SAMPLE_EVERY`], so a redraw never
//! reads a file; where `/proc` is missing the figures are simply not shown.
use std::time::{Duration, Instant};

/// How often the figures are refreshed.
pub const SAMPLE_EVERY: Duration = Duration::from_secs(2);

/// The figures last sampled; `None` where not known (yet).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Figures {
    pub cpu_pct: Option<u8>,
    pub ram_pct: Option<u8>,
}

impl Figures {
    /// The dock's text, e.g. `cpu 12% · ram 43%`; `None` when nothing is asked for or known.
    pub fn dock_text(self, cpu: bool, ram: bool) -> Option<String> {
        format_figures(
            cpu.then_some(self.cpu_pct).flatten(),
            ram.then_some(self.ram_pct).flatten(),
        )
    }
}

/// Reads the figures, at most every [`SAMPLE_EVERY`]. Each attach owns one (several attaches
/// may run in one process, as `tuios web` and `tuios ssh` do; they do not share it).
#[derive(Debug, Default)]
pub struct Sampler {
    at: Option<Instant>,
    /// Busy and total jiffies at the previous sample; CPU use is the change between two.
    last_cpu: Option<(u64, u64)>,
    figures: Figures,
}

impl Sampler {
    /// Takes a new sample when the last is old enough; true when a figure changed.
    pub fn refresh(&mut self, now: Instant) -> bool {
        if self
            .at
            .is_some_and(|at| now.duration_since(at) < SAMPLE_EVERY)
        {
            return false;
        }
        self.at = Some(now);
        let before = self.figures;
        if let Some(cpu) = std::fs::read_to_string("/proc/stat")
            .ok()
            .and_then(|t| t.lines().next().and_then(parse_cpu_line))
        {
            if let Some(last) = self.last_cpu {
                self.figures.cpu_pct = cpu_percent(last, cpu);
            }
            self.last_cpu = Some(cpu);
        }
        self.figures.ram_pct = std::fs::read_to_string("/proc/meminfo")
            .ok()
            .and_then(|t| ram_percent(&t));
        self.figures != before
    }

    pub fn figures(&self) -> Figures {
        self.figures
    }
}

fn format_figures(cpu: Option<u8>, ram: Option<u8>) -> Option<String> {
    let parts: Vec<String> = [("cpu", cpu), ("ram", ram)]
        .into_iter()
        .filter_map(|(name, v)| v.map(|v| format!("{name} {v}%")))
        .collect();
    (!parts.is_empty()).then(|| parts.join(" · "))
}

/// Busy and total jiffies from the `cpu` line of `/proc/stat` (idle and iowait count as idle).
fn parse_cpu_line(line: &str) -> Option<(u64, u64)> {
    let mut fields = line.split_whitespace();
    if fields.next()? != "cpu" {
        return None;
    }
    let v: Vec<u64> = fields.filter_map(|f| f.parse().ok()).collect();
    if v.len() < 4 {
        return None;
    }
    // user nice system idle iowait irq softirq steal; guest time is already inside user.
    let total: u64 = v.iter().take(8).sum();
    let idle = v[3] + v.get(4).copied().unwrap_or(0);
    Some((total - idle, total))
}

fn cpu_percent(before: (u64, u64), after: (u64, u64)) -> Option<u8> {
    let total = after.1.checked_sub(before.1)?;
    let busy = after.0.checked_sub(before.0)?;
    (total > 0).then(|| ((busy * 100 + total / 2) / total).min(100) as u8)
}

/// Memory in use (total less available) as a percentage, from `/proc/meminfo`.
fn ram_percent(meminfo: &str) -> Option<u8> {
    let field = |name: &str| -> Option<u64> {
        meminfo
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|rest| rest.trim_start_matches(':').split_whitespace().next())
            .and_then(|n| n.parse().ok())
    };
    let total = field("MemTotal")?;
    let available = field("MemAvailable")?;
    (total > 0).then(|| ((total.saturating_sub(available) * 100 + total / 2) / total) as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_use_is_the_busy_share_between_two_samples() {
        let a = parse_cpu_line("cpu  100 0 100 700 100 0 0 0 0 0").unwrap();
        assert_eq!(a, (200, 1000));
        let b = parse_cpu_line("cpu  250 0 150 1100 100 0 0 0 0 0").unwrap();
        assert_eq!(cpu_percent(a, b), Some(33));
        assert_eq!(cpu_percent(b, b), None, "no time passed");
        assert_eq!(
            parse_cpu_line("cpu0 1 2 3 4"),
            None,
            "only the summary line"
        );
        assert_eq!(parse_cpu_line("cpu 1 2"), None);
    }

    #[test]
    fn ram_use_is_total_less_available() {
        let info = "MemTotal:       16000000 kB\nMemFree:         1000000 kB\nMemAvailable:    4000000 kB\n";
        assert_eq!(ram_percent(info), Some(75));
        assert_eq!(ram_percent("MemTotal: 10 kB\n"), None);
    }

    #[test]
    fn dock_text_names_what_is_known() {
        assert_eq!(
            format_figures(Some(5), Some(40)).as_deref(),
            Some("cpu 5% · ram 40%")
        );
        assert_eq!(format_figures(None, Some(40)).as_deref(), Some("ram 40%"));
        assert_eq!(format_figures(None, None), None);
    }

    #[test]
    fn a_sampler_reads_again_only_after_its_interval() {
        let mut s = Sampler::default();
        let t = Instant::now();
        assert!(s.refresh(t), "the first sample knows the memory figure");
        assert!(s.figures().ram_pct.is_some());
        assert!(!s.refresh(t + SAMPLE_EVERY / 2), "too soon: nothing read");
        assert_eq!(
            Figures {
                cpu_pct: Some(5),
                ram_pct: Some(40)
            }
            .dock_text(false, true)
            .as_deref(),
            Some("ram 40%"),
            "only what is asked for"
        );
    }

    #[test]
    fn this_machine_reports_its_memory() {
        // The client's tests run on Linux, where /proc is always there.
        let info = std::fs::read_to_string("/proc/meminfo").expect("/proc/meminfo");
        assert!(ram_percent(&info).is_some_and(|p| p <= 100));
        let stat = std::fs::read_to_string("/proc/stat").expect("/proc/stat");
        assert!(parse_cpu_line(stat.lines().next().unwrap()).is_some());
    }
}
