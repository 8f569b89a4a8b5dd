# Everyday recipes. Every command here also works by hand; see README.md.

# Build and start a detached session you can drive (starts the daemon if needed).
run name="demo":
    cargo run -p tuios-client -- new {{name}}

# The whole test suite (what CI runs).
test:
    cargo test --workspace

# Format check and lints, as CI runs them.
lint:
    cargo fmt --all -- --check
    rustfmt --edition 2021 --check actors/src/verbs/*.rs client/src/verbs/*.rs
    cargo clippy --workspace --all-targets -- -D warnings

# Side-by-side benchmark against tmux and a bare PTY reader (release build).
bench:
    cargo build --release -p tuios-client -p tuios-integration-tests
    target/release/tuios-bench

# Emulator micro-benchmark (parse speed, scrollback memory).
emubench:
    cargo run --release -p tuios-emulator --example emubench

# Peak RSS under hostile clients, list-sessions latency while windows flood, throughput scaling.
stress:
    cargo build --release -p tuios-client
    python3 bench/stress.py target/release/tuios
