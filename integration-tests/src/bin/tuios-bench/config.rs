//! Configuration: which systems and phases run and how big they are, from the environment.

use std::path::PathBuf;

use super::{ctx, R};

/// What this bench run does, read from the environment (`TUIOS_BIN`, `TUIOS_BENCH_*`).
pub(crate) struct BenchConfig {
    pub(crate) bin: PathBuf,
    pub(crate) bare: bool,
    pub(crate) tuios: bool,
    pub(crate) tmux: bool,
    pub(crate) mib: usize,
    pub(crate) runs: usize,
    pub(crate) roundtrips: usize,
    pub(crate) windows: usize,
    pub(crate) lines: usize,
    pub(crate) phases: Phases,
    pub(crate) latency: usize,
    pub(crate) idle_windows: usize,
    pub(crate) idle_secs: usize,
    pub(crate) attach_runs: usize,
    pub(crate) keys: usize,
    pub(crate) scale_windows: usize,
    pub(crate) starts: usize,
    pub(crate) cli_runs: usize,
    pub(crate) neighbour: NeighbourKnobs,
}

/// Sizes of the neighbour phase (j) (TUIOS_BENCH_NEIGHBOUR_*). Declared here rather than in
/// neighbour.rs so the configuration depends on no phase: the phases import it, not the reverse.
pub(crate) struct NeighbourKnobs {
    pub(crate) keys: usize,
    pub(crate) rounds: usize,
    pub(crate) mib: usize,
}

/// Which parts of the benchmark run (TUIOS_BENCH_PHASES).
#[derive(Clone, Copy)]
pub(crate) struct Phases {
    pub(crate) throughput: bool,
    pub(crate) roundtrip: bool,
    pub(crate) memory: bool,
    pub(crate) latency: bool,
    pub(crate) idle: bool,
    pub(crate) attached: bool,
    pub(crate) keys: bool,
    pub(crate) scale: bool,
    pub(crate) startup: bool,
    pub(crate) neighbour: bool,
}

impl Phases {
    const ALL: &'static str =
        "throughput,roundtrip,memory,latency,idle,attached,keys,scale,startup,neighbour";

    fn parse(list: &str) -> R<Phases> {
        let mut p = Phases {
            throughput: false,
            roundtrip: false,
            memory: false,
            latency: false,
            idle: false,
            attached: false,
            keys: false,
            scale: false,
            startup: false,
            neighbour: false,
        };
        for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let flag = match name {
                "throughput" => &mut p.throughput,
                "roundtrip" => &mut p.roundtrip,
                "memory" => &mut p.memory,
                "latency" => &mut p.latency,
                "idle" => &mut p.idle,
                "attached" => &mut p.attached,
                "keys" => &mut p.keys,
                "scale" => &mut p.scale,
                "startup" => &mut p.startup,
                "neighbour" => &mut p.neighbour,
                other => {
                    return Err(format!(
                        "TUIOS_BENCH_PHASES: unknown phase {other:?} ({})",
                        Phases::ALL
                    ))
                }
            };
            *flag = true;
        }
        Ok(p)
    }
}

fn env_num(name: &str, default: usize) -> R<usize> {
    match std::env::var(name) {
        Ok(v) => v
            .trim()
            .parse::<usize>()
            .ok()
            .filter(|n| *n > 0)
            .ok_or_else(|| format!("{name}={v:?} is not a positive integer")),
        Err(_) => Ok(default),
    }
}

impl BenchConfig {
    pub(crate) fn from_env() -> R<BenchConfig> {
        let exe = std::env::current_exe().map_err(ctx("locating this executable"))?;
        let bin = match std::env::var_os("TUIOS_BIN") {
            Some(p) => PathBuf::from(p),
            None => exe.with_file_name("tuios"),
        };
        let systems =
            std::env::var("TUIOS_BENCH_SYSTEMS").unwrap_or_else(|_| "bare,tuios,tmux".into());
        let mut cfg = BenchConfig {
            bin,
            bare: false,
            tuios: false,
            tmux: false,
            mib: env_num("TUIOS_BENCH_MIB", 64)?,
            runs: env_num("TUIOS_BENCH_RUNS", 3)?,
            roundtrips: env_num("TUIOS_BENCH_ROUNDTRIPS", 200)?,
            windows: env_num("TUIOS_BENCH_WINDOWS", 50)?,
            lines: env_num("TUIOS_BENCH_LINES", 10_000)?,
            phases: Phases::parse(
                &std::env::var("TUIOS_BENCH_PHASES").unwrap_or_else(|_| Phases::ALL.into()),
            )?,
            latency: env_num("TUIOS_BENCH_LATENCY", 500)?,
            idle_windows: env_num("TUIOS_BENCH_IDLE_WINDOWS", 50)?,
            idle_secs: env_num("TUIOS_BENCH_IDLE_SECS", 10)?,
            attach_runs: env_num("TUIOS_BENCH_ATTACH_RUNS", 3)?,
            keys: env_num("TUIOS_BENCH_KEYS", 50)?,
            scale_windows: env_num("TUIOS_BENCH_SCALE_WINDOWS", 1000)?,
            starts: env_num("TUIOS_BENCH_STARTS", 10)?,
            cli_runs: env_num("TUIOS_BENCH_CLI_RUNS", 50)?,
            neighbour: NeighbourKnobs {
                keys: env_num("TUIOS_BENCH_NEIGHBOUR_KEYS", 100)?,
                rounds: env_num("TUIOS_BENCH_NEIGHBOUR_ROUNDS", 5)?,
                mib: env_num("TUIOS_BENCH_NEIGHBOUR_MIB", 16)?,
            },
        };
        for s in systems.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            match s {
                "bare" => cfg.bare = true,
                "tuios" => cfg.tuios = true,
                "tmux" => cfg.tmux = true,
                other => {
                    return Err(format!(
                        "TUIOS_BENCH_SYSTEMS: unknown system {other:?} (bare, tuios, tmux)"
                    ))
                }
            }
        }
        Ok(cfg)
    }
}
