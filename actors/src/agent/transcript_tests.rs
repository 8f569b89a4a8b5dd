use super::*;
use std::io::Write;

const CWD: &str = "/home/u/my.proj";
const VERSION: &str = "2.0.14";

// Records shaped as Claude Code writes them (trimmed of fields we do not read).
fn user(text: &str) -> String {
    format!(
        r#"{{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"{CWD}","sessionId":"5c1e","version":"{VERSION}","gitBranch":"main","type":"user","message":{{"role":"user","content":"{text}"}},"uuid":"a1","timestamp":"2025-10-09T10:00:00.000Z"}}"#
    )
}

fn assistant(stop: Option<&str>) -> String {
    let stop = stop.map(|s| format!("\"{s}\"")).unwrap_or("null".into());
    format!(
        r#"{{"parentUuid":"a1","isSidechain":false,"userType":"external","cwd":"{CWD}","sessionId":"5c1e","version":"{VERSION}","message":{{"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{{"type":"text","text":"Done."}}],"stop_reason":{stop},"stop_sequence":null,"usage":{{"input_tokens":3,"output_tokens":12}}}},"type":"assistant","uuid":"b2","timestamp":"2025-10-09T10:00:05.000Z"}}"#
    )
}

fn sidechain_user() -> String {
    user("task for a subagent").replace(r#""isSidechain":false"#, r#""isSidechain":true"#)
}

const SUMMARY: &str = r#"{"type":"summary","summary":"Fix the login bug","leafUuid":"b2"}"#;
const SNAPSHOT: &str = r#"{"type":"file-history-snapshot","messageId":"a1","snapshot":{"trackedFileBackups":{}},"isSnapshotUpdate":false}"#;

fn lines(records: &[String]) -> Vec<u8> {
    let mut out = String::new();
    for r in records {
        out.push_str(r);
        out.push('\n');
    }
    out.into_bytes()
}

#[test]
fn records_map_to_states() {
    assert_eq!(
        record_state(user("hi").as_bytes()),
        Some(AgentState::Working)
    );
    assert_eq!(
        record_state(assistant(Some("end_turn")).as_bytes()),
        Some(AgentState::Done)
    );
    assert_eq!(
        record_state(assistant(Some("tool_use")).as_bytes()),
        Some(AgentState::Working)
    );
    assert_eq!(
        record_state(assistant(None).as_bytes()),
        Some(AgentState::Working)
    );
    assert_eq!(record_state(sidechain_user().as_bytes()), None);
    assert_eq!(record_state(SUMMARY.as_bytes()), None);
    assert_eq!(record_state(SNAPSHOT.as_bytes()), None);
    assert_eq!(record_state(b"{not json"), None);
    assert_eq!(record_state(b""), None);
}

#[test]
fn the_last_state_bearing_record_wins() {
    let text = lines(&[
        user("go"),
        assistant(Some("end_turn")),
        sidechain_user(),
        SUMMARY.into(),
        "garbage {".into(),
    ]);
    assert_eq!(last_state(&text), Some(AgentState::Done));
    assert_eq!(last_state(b"\n\n"), None);
}

#[test]
fn project_directory_names_follow_claude_code() {
    assert_eq!(dashed("/home/u/my.proj"), "-home-u-my-proj");
    assert_eq!(dashed("/home/u/.config/a_b c"), "-home-u--config-a-b-c");
    // JavaScript counts UTF-16 units: one dash for é, two for an emoji.
    assert_eq!(dashed("/x/é🎉"), "-x----");
    let spec = TranscriptSpec::compile(&TranscriptFile {
        reader: READER_CLAUDE_JSONL.into(),
        dir: "{home}/.claude/projects/{cwd:dashes}".into(),
        glob: String::new(),
    })
    .unwrap();
    assert_eq!(spec.glob, "*.jsonl");
    assert_eq!(
        spec.dir_for(Path::new("/home/u"), CWD),
        PathBuf::from("/home/u/.claude/projects/-home-u-my-proj")
    );
    let bad = |reader: &str, dir: &str, glob: &str| {
        TranscriptSpec::compile(&TranscriptFile {
            reader: reader.into(),
            dir: dir.into(),
            glob: glob.into(),
        })
        .unwrap_err()
    };
    assert!(bad("codex-jsonl", "{home}", "").contains("unknown"));
    assert!(bad(READER_CLAUDE_JSONL, " ", "").contains("no dir"));
    assert!(bad(READER_CLAUDE_JSONL, "{home}", "a/*.jsonl").contains("'/'"));
}

#[test]
fn the_reader_takes_complete_lines_and_keeps_a_partial_one() {
    let mut r = TailReader::default();
    let first = lines(&[user("go")]);
    let partial = assistant(Some("end_turn"));
    let (half_a, half_b) = partial.as_bytes().split_at(40);
    let mut chunk = first.clone();
    chunk.extend_from_slice(half_a);
    let (start, want) = r.plan(chunk.len() as u64);
    assert_eq!((start, want), (0, chunk.len() as u64));
    assert_eq!(r.consume(start, &chunk), Some(AgentState::Working));
    assert_eq!(r.offset, first.len() as u64, "the partial line waits");
    // The rest of the line arrives.
    let mut file = chunk.clone();
    file.extend_from_slice(half_b);
    file.push(b'\n');
    let (start, want) = r.plan(file.len() as u64);
    let got = r.consume(start, &file[start as usize..(start + want) as usize]);
    assert_eq!(got, Some(AgentState::Done));
    assert_eq!(r.offset, file.len() as u64);
    // Nothing new: nothing said.
    let (start, want) = r.plan(file.len() as u64);
    assert_eq!(want, 0);
    assert_eq!(r.consume(start, &[]), None);
    // Truncated (a new file in its place): read again from the start.
    let (start, _) = r.plan(10);
    assert_eq!((start, r.offset), (0, 0));
}

#[test]
fn the_reader_reads_at_most_a_mebibyte_and_resyncs_on_a_line() {
    let mut r = TailReader::default();
    let big = 3 * MAX_READ;
    let (start, want) = r.plan(big);
    assert_eq!((start, want), (big - MAX_READ, MAX_READ));
    assert!(r.skip);
    // The window starts mid-line: what precedes the first newline is dropped, even when it
    // would parse.
    let mut chunk = b"\"type\":\"user\"}\n".to_vec();
    chunk.extend(lines(&[assistant(Some("end_turn"))]));
    assert_eq!(r.consume(start, &chunk), Some(AgentState::Done));
    assert!(!r.skip);
    assert_eq!(r.offset, start + chunk.len() as u64);

    // A line longer than the cap: skipped across looks until its newline.
    let mut r = TailReader::default();
    let (start, want) = r.plan(2 * MAX_READ);
    let no_newline = vec![b'x'; want as usize];
    assert_eq!(r.consume(start, &no_newline), None);
    assert_eq!((r.offset, r.skip), (2 * MAX_READ, true));
    let mut more = b"xxx\n".to_vec();
    more.extend(lines(&[user("next")]));
    let (start, _) = r.plan(2 * MAX_READ + more.len() as u64);
    assert_eq!(r.consume(start, &more), Some(AgentState::Working));
    assert!(!r.skip);
}

#[test]
fn read_tail_follows_a_real_file_and_notices_it_gone() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    let mut r = TailReader::default();
    assert!(matches!(read_tail(&path, &mut r), ReadOutcome::Missing));
    let mut f = File::create(&path).unwrap();
    f.write_all(&lines(&[SNAPSHOT.into(), user("go")])).unwrap();
    assert!(matches!(
        read_tail(&path, &mut r),
        ReadOutcome::Read(Some(AgentState::Working))
    ));
    assert!(matches!(read_tail(&path, &mut r), ReadOutcome::Read(None)));
    f.write_all(&lines(&[assistant(Some("end_turn"))])).unwrap();
    assert!(matches!(
        read_tail(&path, &mut r),
        ReadOutcome::Read(Some(AgentState::Done))
    ));
    std::fs::remove_file(&path).unwrap();
    assert!(matches!(read_tail(&path, &mut r), ReadOutcome::Missing));
}

#[test]
fn the_join_needs_one_file_naming_the_agents_cwd_and_version() {
    let ours = Candidate {
        path: "/p/ours.jsonl".into(),
        tail: lines(&[SNAPSHOT.into(), user("go"), SUMMARY.into()]),
    };
    let other_version = Candidate {
        path: "/p/old.jsonl".into(),
        tail: lines(&[user("go")]).replace_version("1.0.0"),
    };
    let other_cwd = Candidate {
        path: "/p/elsewhere.jsonl".into(),
        tail: lines(&[user("go")]).replace_cwd("/home/u/other"),
    };
    let nothing = Candidate {
        path: "/p/summary.jsonl".into(),
        tail: lines(&[SUMMARY.into()]),
    };
    let set = [
        other_version.clone(),
        ours.clone(),
        other_cwd.clone(),
        nothing,
    ];
    assert_eq!(
        choose(&set, CWD, VERSION),
        Search::Joined("/p/ours.jsonl".into())
    );
    // A resumed session: older records of another version, the newest one ours.
    let mut resumed = other_version.clone();
    resumed.tail.extend(lines(&[assistant(None)]));
    let two = [ours.clone(), resumed];
    match choose(&two, CWD, VERSION) {
        Search::NoJoin(why) => assert!(why.starts_with("ambiguous: 2"), "{why}"),
        j => panic!("{j:?}"),
    }
    match choose(&[other_version, other_cwd], CWD, VERSION) {
        Search::NoJoin(why) => assert!(why.contains("no transcript"), "{why}"),
        j => panic!("{j:?}"),
    }
}

#[test]
fn search_reads_a_real_directory() {
    let home = tempfile::tempdir().unwrap();
    let spec = TranscriptSpec {
        dir: "{home}/.claude/projects/{cwd:dashes}".into(),
        glob: "*.jsonl".into(),
    };
    // This test process stands in for the agent: its exe's base name is the version.
    let me = std::process::id() as i32;
    let exe = std::fs::read_link("/proc/self/exe").unwrap();
    let version = exe.file_name().unwrap().to_string_lossy().into_owned();
    let agent = AgentProc {
        pid: me,
        exe: exe.to_string_lossy().into_owned(),
    };
    // Our cwd is not the temp dir, so point the agent's cwd check at ours.
    let own_cwd = std::env::current_dir()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let dir = spec.dir_for(home.path(), &own_cwd);
    assert!(matches!(
        search(&spec, home.path(), &agent),
        Search::NoJoin(_)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let record = user("go").replace(CWD, &own_cwd).replace(VERSION, &version);
    std::fs::write(dir.join("a.jsonl"), format!("{record}\n")).unwrap();
    std::fs::write(dir.join("notes.txt"), format!("{record}\n")).unwrap();
    assert_eq!(
        search(&spec, home.path(), &agent),
        Search::Joined(dir.join("a.jsonl"))
    );
    std::fs::write(dir.join("b.jsonl"), format!("{record}\n")).unwrap();
    assert!(matches!(
        search(&spec, home.path(), &agent),
        Search::NoJoin(w) if w.starts_with("ambiguous")
    ));
}

#[test]
fn start_time_counts_ticks_from_boot() {
    let stat = "42 (my (odd) name) S 1 42 42 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 1 0 250 1000 10";
    let t = start_time(stat, "cpu 1 2 3\nbtime 1700000000\n", 100).unwrap();
    assert_eq!(
        t,
        UNIX_EPOCH + Duration::from_secs(1_700_000_000) + Duration::from_millis(2_500)
    );
    assert!(start_time("garbage", "btime 1", 100).is_none());
    // This process started before now.
    assert!(process_start(std::process::id() as i32).unwrap() <= SystemTime::now());
}

trait Rewrite {
    fn replace_version(self, v: &str) -> Vec<u8>;
    fn replace_cwd(self, c: &str) -> Vec<u8>;
}

impl Rewrite for Vec<u8> {
    fn replace_version(self, v: &str) -> Vec<u8> {
        String::from_utf8(self)
            .unwrap()
            .replace(
                &format!("\"version\":\"{VERSION}\""),
                &format!("\"version\":\"{v}\""),
            )
            .into_bytes()
    }
    fn replace_cwd(self, c: &str) -> Vec<u8> {
        String::from_utf8(self)
            .unwrap()
            .replace(&format!("\"cwd\":\"{CWD}\""), &format!("\"cwd\":\"{c}\""))
            .into_bytes()
    }
}
