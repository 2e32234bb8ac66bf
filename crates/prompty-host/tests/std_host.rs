//! `StdHost` on the real file system and environment: regular files only, the size cap,
//! symbolic links and roots through the loader, and environment access only when allowed.

use std::path::{Path, PathBuf};

use prompty_host::{Host, HostError, MAX_FILE_BYTES, StdHost};
use prompty_syntax::{LoadOptions, Loaded, load_path};
use prompty_test_support::TempDir;

fn load(host: &StdHost, path: &Path) -> Loaded {
    let options = LoadOptions { allowed_roots: host.roots().to_vec(), ..LoadOptions::default() };
    load_path(path, host, &options).expect("readable prompt")
}

fn errors(loaded: &Loaded) -> Vec<String> {
    loaded.diagnostics.iter().filter(|d| d.is_error()).map(|d| d.message.clone()).collect()
}

/// Cargo sets `CARGO_PKG_NAME` for a test binary it runs: a variable known to be set.
const SET_VAR: &str = "CARGO_PKG_NAME";

fn env_prompt(tmp: &TempDir, var: &str) -> PathBuf {
    tmp.write("env.prompty", format!("---\nmodel:\n  id: ${{env:{var}}}\n---\nuser:\nhi\n").as_bytes())
}

#[test]
fn the_environment_is_closed_unless_allowed() {
    assert_eq!(std::env::var(SET_VAR).as_deref(), Ok("prompty-host"), "run through cargo test");
    let tmp = TempDir::new("env");
    let path = env_prompt(&tmp, SET_VAR);

    let closed = StdHost::new();
    assert_eq!(closed.env(SET_VAR), None);
    assert!(!closed.reads_any_env());
    assert_eq!(errors(&load(&closed, &path)), [format!("Environment variable '{SET_VAR}' not set")]);

    for open in [StdHost::new().allow_env(true), StdHost::new().allow_env_var(SET_VAR)] {
        let loaded = load(&open, &path);
        assert!(errors(&loaded).is_empty(), "{:?}", loaded.diagnostics);
        let prompt = loaded.prompt.expect("prompt");
        assert_eq!(prompt.model.as_ref().map(|m| m.id.as_str()), Some("prompty-host"));
        // The value is recorded as secret: displays show the reference.
        assert_eq!(prompt.secrets.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(), [SET_VAR]);
        assert_eq!(prompt.redacted().model.map(|m| m.id), Some(format!("${{env:{SET_VAR}}}")));
    }

    // An allow list reads its names only; `allow_env(false)` forgets it.
    let only = StdHost::new().allow_env_var("SOME_OTHER_NAME");
    assert_eq!(only.env(SET_VAR), None);
    assert!(!errors(&load(&only, &path)).is_empty());
    let reclosed = StdHost::new().allow_env_var(SET_VAR).allow_env(false);
    assert_eq!(reclosed.env(SET_VAR), None);
}

#[test]
fn reads_regular_files_only_and_caps_their_size() {
    let tmp = TempDir::new("files");
    let host = StdHost::new();
    let file = tmp.write("a.txt", b"hello");
    assert_eq!(host.read(&file), Ok(b"hello".to_vec()));
    assert_eq!(host.read(&tmp.path().join("missing.txt")), Err(HostError::NotFound));
    assert_eq!(host.read(tmp.path()), Err(HostError::Other("is a directory".to_owned())));
    #[cfg(unix)]
    assert_eq!(host.read(Path::new("/dev/null")), Err(HostError::NotAFile));
    // A sparse file one byte over the limit: refused from its size, never read.
    let big = tmp.path().join("big.json");
    std::fs::File::create(&big).and_then(|f| f.set_len(MAX_FILE_BYTES as u64 + 1)).expect("sparse file");
    assert_eq!(host.read(&big), Err(HostError::TooLarge { limit: MAX_FILE_BYTES as u64 }));
    // The same through a `${file:}` reference: an error naming the limit.
    let prompt = tmp.write("big.prompty", b"---\nmetadata: ${file:big.json}\n---\nuser:\nhi\n");
    let messages = errors(&load(&host, &prompt));
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert!(messages[0].contains(&MAX_FILE_BYTES.to_string()), "{messages:?}");
}

#[test]
fn file_references_stay_in_the_prompt_folder_and_the_roots() {
    let tmp = TempDir::new("roots");
    tmp.write("shared/meta.json", br#"{"team": "search"}"#);
    let prompt = tmp.write("p/x.prompty", b"---\nmetadata: ${file:../shared/meta.json}\n---\nuser:\nhi\n");

    let confined = load(&StdHost::new(), &prompt);
    assert_eq!(errors(&confined), ["`${file:../shared/meta.json}` resolves outside allowed roots"]);

    let widened = load(&StdHost::new().root(tmp.path().join("shared")), &prompt);
    assert!(errors(&widened).is_empty(), "{:?}", widened.diagnostics);
    let metadata = widened.prompt.and_then(|p| p.metadata).expect("metadata");
    assert_eq!(metadata.get("team"), Some(&"search".into()));
}

#[cfg(unix)]
#[test]
fn a_symbolic_link_out_of_the_roots_is_refused_whether_or_not_its_target_exists() {
    let tmp = TempDir::new("links");
    tmp.write("outside/secret.json", br#"{"v": "TOP-SECRET"}"#);
    std::fs::create_dir_all(tmp.path().join("p")).expect("p");
    std::os::unix::fs::symlink(tmp.path().join("outside"), tmp.path().join("p/linkdir")).expect("symlink");
    let host = StdHost::new();
    assert_eq!(host.read_link(&tmp.path().join("p/linkdir")), Some(tmp.path().join("outside")));
    for rel in ["linkdir/secret.json", "linkdir/missing.json"] {
        let prompt = tmp.write("p/x.prompty", format!("---\nmetadata: ${{file:{rel}}}\n---\nuser:\nhi\n").as_bytes());
        let loaded = load(&host, &prompt);
        assert_eq!(errors(&loaded), [format!("`${{file:{rel}}}` resolves outside allowed roots")]);
        assert!(!format!("{loaded:?}").contains("TOP-SECRET"));
    }
    // A link inside the prompt's folder is followed.
    tmp.write("p/real.json", br#"{"v": 1}"#);
    std::os::unix::fs::symlink(tmp.path().join("p/real.json"), tmp.path().join("p/alias.json")).expect("symlink");
    let prompt = tmp.write("p/y.prompty", b"---\nmetadata: ${file:alias.json}\n---\nuser:\nhi\n");
    assert!(errors(&load(&host, &prompt)).is_empty());
}

#[test]
fn a_host_is_send_sync_and_cheap_to_share() {
    fn assert_send_sync<T: Send + Sync + Clone + 'static>() {}
    assert_send_sync::<StdHost>();
    let shared: std::sync::Arc<dyn Host + Send + Sync> = std::sync::Arc::new(StdHost::new().allow_env(true));
    assert!(shared.env(SET_VAR).is_some());
}
