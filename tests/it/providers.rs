//! Saved providers and keys: the registry file in a real data dir (round trip, broken files named
//! with their field), key resolution through a keychain with the env fallback reported, the real
//! OS keychain, and "test connection" against the loopback server over real HTTP (right key, wrong
//! key with the server's own message, no server at all).

use std::collections::BTreeMap;
use std::time::Duration;

use crucible_llm::{
    resolve_key, ApiKey, KeySource, LlmError, Loopback, MemoryKeychain, ModelEntry, ModelSettings,
    OsKeychain, PriceTable, Provider, ProviderEntry, Registry, SecretStore, LOOPBACK_BAD_KEY,
};

const SECRET: &str = "sk-loopback-SECRET-7311";

fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> + Clone {
    let map: BTreeMap<String, String> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    move |k| map.get(k).cloned()
}

fn local(id: &str, base_url: &str) -> ProviderEntry {
    ProviderEntry {
        id: id.into(),
        kind: Provider::OpenAiCompatible,
        base_url: Some(base_url.into()),
        key_env: None,
        timeout_s: None,
        stream: None,
        models: vec![ModelEntry {
            name: "loop-1".into(),
            settings: ModelSettings::default(),
            price: Some(crucible_llm::ModelPrice {
                input_per_mtok: 1.5,
                output_per_mtok: 2.0,
                ..Default::default()
            }),
        }],
        max_concurrency: None,
    }
}

#[test]
fn registry_round_trips_through_the_data_dir_without_keys() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(
        Registry::load(dir.path()).unwrap(),
        Registry::default(),
        "no file = no providers"
    );
    let mut reg = Registry::default();
    let path = Registry::file(dir.path()).display().to_string();
    reg.upsert(local("lab", "http://127.0.0.1:8000/v1"), None, &path)
        .unwrap();
    reg.upsert(
        ProviderEntry {
            id: "router".into(),
            kind: Provider::OpenRouter,
            base_url: None,
            key_env: Some("MY_ROUTER_KEY".into()),
            timeout_s: None,
            stream: None,
            models: vec![],
            max_concurrency: None,
        },
        None,
        &path,
    )
    .unwrap();
    reg.save(dir.path()).unwrap();
    let kc = MemoryKeychain::new();
    kc.set("lab", &ApiKey::new(SECRET)).unwrap();
    let back = Registry::load(dir.path()).unwrap();
    assert_eq!(back, reg);
    let text = std::fs::read_to_string(Registry::file(dir.path())).unwrap();
    assert!(!text.contains(SECRET), "keys never go into the file");
    assert!(
        text.contains("\"kind\": \"openai-compatible\""),
        "kinds are written as in model specs: {text}"
    );
    // Saved prices join the price table; the spec carries the saved URL.
    let table = back.price_table(PriceTable::builtin());
    assert_eq!(table.price("loop-1").unwrap().input_per_mtok, 1.5);
    assert_eq!(
        back.spec("lab:loop-1").unwrap().base_url,
        "http://127.0.0.1:8000/v1"
    );
}

#[test]
fn broken_registry_files_name_file_and_field() {
    let cases = [
        (
            r#"{"version": 1, "providers": [{"id": "x", "kind": "openai-compatible"}]}"#,
            "providers[0].base_url",
        ),
        (
            r#"{"version": 1, "providers": [{"id": "x", "kind": "bogus"}]}"#,
            "providers[0].kind",
        ),
        (
            r#"{"version": 1, "providers": [{"id": "x", "kind": "openai", "models": [{"name": "m", "settings": {"temperature": "hot"}}]}]}"#,
            "providers[0].models[0].settings.temperature",
        ),
        (
            r#"{"version": 1, "providers": [{"id": "x", "kind": "openai"}, {"id": "x", "kind": "gemini"}]}"#,
            "providers[1].id",
        ),
        (r#"{"version": 9, "providers": []}"#, "version"),
        (r#"{"version": 1, "providers": [], "api_key": "x"}"#, ""),
    ];
    for (text, field) in cases {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(Registry::file(dir.path()), text).unwrap();
        let err = Registry::load(dir.path()).unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("providers.json"), "names the file: {msg}");
        match err {
            LlmError::Registry { field: f, .. } if !field.is_empty() => {
                assert_eq!(f, field, "{msg}")
            }
            LlmError::Registry { message, .. } => {
                assert!(message.contains("api_key"), "unknown field named: {msg}")
            }
            other => panic!("{other}"),
        }
    }
}

#[test]
fn key_source_reports_keychain_then_env_fallback() {
    let kc = MemoryKeychain::new();
    let mut p = local("lab", "http://127.0.0.1:1/v1");
    p.kind = Provider::OpenAi;
    p.key_env = Some("LAB_KEY".into());
    assert_eq!(
        p.key_source(&kc, env(&[("LAB_KEY", "k")])),
        KeySource::Env("LAB_KEY".into())
    );
    assert_eq!(
        p.key_source(&kc, env(&[("OPENAI_API_KEY", "k")])),
        KeySource::Env("OPENAI_API_KEY".into())
    );
    assert_eq!(p.key_source(&kc, env(&[])), KeySource::None);
    kc.set("lab", &ApiKey::new(SECRET)).unwrap();
    assert_eq!(
        p.key_source(&kc, env(&[("LAB_KEY", "k")])),
        KeySource::Keychain("memory".into()),
        "the keychain wins over env vars"
    );
    let (key, _) = p.resolve_key(&kc, env(&[])).unwrap();
    assert_eq!(key, Some(ApiKey::new(SECRET)));
    assert!(
        !format!("{key:?}").contains(SECRET),
        "Debug never shows a key"
    );
}

#[test]
fn os_keychain_round_trip() {
    // The real OS store (Secret Service, or kernel keyutils when no desktop keyring runs), under
    // a service name of its own so the user's entries are never touched.
    let kc = OsKeychain::new(&format!("crucible-test-{}", std::process::id()));
    let account = "round-trip";
    let backend = kc.backend();
    assert!(
        [
            "secret-service",
            "keyutils",
            "macos-keychain",
            "windows-credential-manager"
        ]
        .contains(&backend.as_str()),
        "{backend}"
    );
    kc.set(account, &ApiKey::new(SECRET))
        .unwrap_or_else(|e| panic!("keychain {backend} refused a write: {e}"));
    assert_eq!(kc.get(account).unwrap(), Some(ApiKey::new(SECRET)));
    let (key, source) = resolve_key(Provider::OpenAi, Some(account), None, &kc, env(&[])).unwrap();
    assert_eq!(key, Some(ApiKey::new(SECRET)));
    assert_eq!(source, KeySource::Keychain(backend.clone()));
    kc.set(account, &ApiKey::new("sk-second")).unwrap();
    assert_eq!(kc.get(account).unwrap(), Some(ApiKey::new("sk-second")));
    assert!(kc.delete(account).unwrap());
    assert!(
        !kc.delete(account).unwrap(),
        "a second delete finds nothing"
    );
}

#[tokio::test]
async fn test_connection_against_a_real_loopback_server() {
    let server = Loopback::start_with_key(Duration::ZERO, Some(SECRET.into()))
        .await
        .unwrap();
    let mut reg = Registry::default();
    reg.upsert(local("lab", &server.base_url()), None, "p")
        .unwrap();
    reg.upsert(local("down", "http://127.0.0.1:9/v1"), None, "p")
        .unwrap();
    let kc = MemoryKeychain::new();

    // No key at all: openai-compatible sends none and the server refuses with its own message.
    let t = reg.test_connection("lab", "loop-1", &kc, env(&[])).await;
    assert!(!t.ok);
    assert_eq!(t.key_source, KeySource::None);
    let err = t.error.unwrap();
    assert!(
        err.contains("HTTP 401") && err.contains(LOOPBACK_BAD_KEY),
        "{err}"
    );

    // A wrong key from the env var the provider names: the same refusal, and the source says
    // env. (A local provider gets CRUCIBLE_API_KEY only by naming it.)
    let mut opted = reg.provider("lab").unwrap().clone();
    opted.key_env = Some("CRUCIBLE_API_KEY".into());
    reg.upsert(opted, None, "providers.json").unwrap();
    let t = reg
        .test_connection(
            "lab",
            "loop-1",
            &kc,
            env(&[("CRUCIBLE_API_KEY", "sk-wrong")]),
        )
        .await;
    assert!(!t.ok);
    assert_eq!(t.key_source, KeySource::Env("CRUCIBLE_API_KEY".into()));
    let err = t.error.unwrap();
    assert!(err.contains(LOOPBACK_BAD_KEY), "{err}");
    assert!(!err.contains("sk-wrong"), "the key is never echoed: {err}");

    // The right key in the keychain: one call, answered.
    kc.set("lab", &ApiKey::new(SECRET)).unwrap();
    let before = server.requests();
    let t = reg
        .test_connection(
            "lab",
            "loop-1",
            &kc,
            env(&[("CRUCIBLE_API_KEY", "sk-wrong")]),
        )
        .await;
    assert!(t.ok, "{:?}", t.error);
    assert_eq!(t.answer.as_deref(), Some("ok"));
    assert_eq!(t.key_source, KeySource::Keychain("memory".into()));
    assert_eq!(server.requests() - before, 1, "exactly one real call");

    // Nobody listening: the error says so instead of hanging or panicking.
    let t = reg.test_connection("down", "loop-1", &kc, env(&[])).await;
    assert!(!t.ok);
    let err = t.error.unwrap();
    assert!(err.contains("gave up") && err.contains("loop-1"), "{err}");

    // Unknown provider: a clear error, no call.
    let t = reg.test_connection("nope", "m", &kc, env(&[])).await;
    assert!(t.error.unwrap().contains("no saved provider \"nope\""));
}

#[test]
fn saved_model_prices_join_the_resolved_price_table() {
    let dir = tempfile::tempdir().unwrap();
    assert!(PriceTable::resolve(dir.path())
        .unwrap()
        .price("loop-1")
        .is_none());
    let mut reg = Registry::default();
    reg.upsert(local("lab", "http://127.0.0.1:8000/v1"), None, "p")
        .unwrap();
    reg.save(dir.path()).unwrap();
    let p = PriceTable::resolve(dir.path())
        .unwrap()
        .price("loop-1")
        .unwrap();
    assert_eq!((p.input_per_mtok, p.output_per_mtok), (1.5, 2.0));
    // A broken providers file does not stop runs from pricing with the table.
    std::fs::write(Registry::file(dir.path()), "{").unwrap();
    assert!(PriceTable::resolve(dir.path()).is_ok());
}

#[test]
fn run_keys_come_from_the_saved_provider_with_that_url() {
    let dir = tempfile::tempdir().unwrap();
    let mut reg = Registry::default();
    reg.upsert(local("lab", "http://127.0.0.1:8000/v1"), None, "p")
        .unwrap();
    reg.save(dir.path()).unwrap();
    let kc = MemoryKeychain::new();
    kc.set("lab", &ApiKey::new(SECRET)).unwrap();
    kc.set("openai", &ApiKey::new("sk-kind")).unwrap();
    let lab = Some("http://127.0.0.1:8000/v1/");
    let (key, source) =
        crucible_llm::resolve_run_key(dir.path(), Provider::OpenAiCompatible, lab, &kc, env(&[]))
            .unwrap();
    assert_eq!(key, Some(ApiKey::new(SECRET)), "the saved provider's key");
    assert_eq!(source, KeySource::Keychain("memory".into()));
    // No saved provider for OpenAI's default URL: the key filed under the kind's name.
    let (key, _) =
        crucible_llm::resolve_run_key(dir.path(), Provider::OpenAi, None, &kc, env(&[])).unwrap();
    assert_eq!(key, Some(ApiKey::new("sk-kind")));
    // Another URL of the same kind is not the saved provider.
    let (key, source) = crucible_llm::resolve_run_key(
        dir.path(),
        Provider::OpenAiCompatible,
        Some("http://10.0.0.1/v1"),
        &kc,
        env(&[]),
    )
    .unwrap();
    assert_eq!((key, source), (None, KeySource::None));
}

#[test]
fn a_saved_providers_key_never_collides_with_the_builtin_accounts() {
    let kc = MemoryKeychain::new();
    // The built-in account crucible/openai holds the user's OpenAI key.
    kc.set("openai", &ApiKey::new("sk-builtin-openai")).unwrap();
    // A saved provider that happens to be called "openai", at some other server.
    let mut p = local("openai", "http://127.0.0.1:9/v1");
    p.kind = Provider::OpenAiCompatible;
    let (key, source) = p.resolve_key(&kc, env(&[])).unwrap();
    assert_eq!(
        (key, source),
        (None, KeySource::None),
        "the saved provider does not read the built-in account"
    );
    // Its own key lives in its own account and leaves the built-in one alone.
    kc.set(&p.account(), &ApiKey::new(SECRET)).unwrap();
    assert_eq!(p.account(), "provider/openai");
    let (key, _) = p.resolve_key(&kc, env(&[])).unwrap();
    assert_eq!(key, Some(ApiKey::new(SECRET)));
    let (key, _) = resolve_key(Provider::OpenAi, None, None, &kc, env(&[])).unwrap();
    assert_eq!(key, Some(ApiKey::new("sk-builtin-openai")));
    // A key saved before accounts were namespaced (under the bare id) is found and moved.
    kc.set("lab", &ApiKey::new("sk-old-lab")).unwrap();
    let lab = local("lab", "http://127.0.0.1:9/v1");
    let (key, _) = lab.resolve_key(&kc, env(&[])).unwrap();
    assert_eq!(key, Some(ApiKey::new("sk-old-lab")));
    assert_eq!(
        kc.get("provider/lab").unwrap(),
        Some(ApiKey::new("sk-old-lab"))
    );
    assert_eq!(kc.get("lab").unwrap(), None);
}

#[test]
fn crucible_api_key_goes_to_a_local_endpoint_only_when_its_provider_opts_in() {
    let kc = MemoryKeychain::new();
    let shared = env(&[("CRUCIBLE_API_KEY", SECRET)]);
    for kind in [Provider::OpenAiCompatible, Provider::Ollama] {
        let (key, source) = resolve_key(kind, None, None, &kc, shared.clone()).unwrap();
        assert_eq!((key, source), (None, KeySource::None), "{kind}");
        let mut p = local("lab", "http://127.0.0.1:9/v1");
        p.kind = kind;
        assert_eq!(
            p.resolve_key(&kc, shared.clone()).unwrap().0,
            None,
            "{kind}"
        );
        // The opt-in: the provider names the variable.
        p.key_env = Some("CRUCIBLE_API_KEY".into());
        let (key, source) = p.resolve_key(&kc, shared.clone()).unwrap();
        assert_eq!(key, Some(ApiKey::new(SECRET)), "{kind}");
        assert_eq!(source, KeySource::Env("CRUCIBLE_API_KEY".into()));
        let (key, _) =
            resolve_key(kind, None, Some("CRUCIBLE_API_KEY"), &kc, shared.clone()).unwrap();
        assert_eq!(key, Some(ApiKey::new(SECRET)), "{kind}: --key-env opts in");
    }
    // The hosted providers keep it as their fallback.
    for kind in [
        Provider::OpenAi,
        Provider::Anthropic,
        Provider::Gemini,
        Provider::OpenRouter,
    ] {
        let (key, source) = resolve_key(kind, None, None, &kc, shared.clone()).unwrap();
        assert_eq!(key, Some(ApiKey::new(SECRET)), "{kind}");
        assert_eq!(source, KeySource::Env("CRUCIBLE_API_KEY".into()));
    }
}

/// Runs `script` in a private D-Bus session with a fresh, unlocked GNOME Keyring (its files in
/// `home`, so a second call finds the first call's keys: a restart of the keyring).
async fn in_keyring_session(home: &std::path::Path, script: &str, env: &[(&str, &str)]) -> String {
    for tool in ["dbus-run-session", "dbus-send", "gnome-keyring-daemon"] {
        let found = std::process::Command::new("sh")
            .args(["-c", &format!("command -v {tool}")])
            .output()
            .is_ok_and(|o| o.status.success());
        assert!(
            found,
            "{tool} not found: install the Debian packages dbus, gnome-keyring and \
             libsecret-tools (apt-get install dbus gnome-keyring libsecret-tools; .ci/setup does)"
        );
    }
    let run = home.join("run");
    std::fs::create_dir_all(&run).unwrap();
    std::fs::set_permissions(&run, std::os::unix::fs::PermissionsExt::from_mode(0o700)).unwrap();
    let full = format!(
        "printf crucible-test | gnome-keyring-daemon --unlock --components=secrets >/dev/null\n\
         for _ in $(seq 100); do\n\
           dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
             org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null \
             | grep -q 'boolean true' && break\n\
           sleep 0.1\n\
         done\n{script}"
    );
    let mut cmd = tokio::process::Command::new("dbus-run-session");
    cmd.args(["--", "bash", "-c", &full])
        .env("HOME", home)
        .env("XDG_DATA_HOME", home.join("data"))
        .env("XDG_RUNTIME_DIR", &run)
        .env_remove("OPENAI_API_KEY")
        .env_remove("CRUCIBLE_API_KEY")
        .envs(env.iter().copied());
    let out = tokio::time::timeout(Duration::from_secs(120), cmd.output())
        .await
        .expect("the keyring session finishes")
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "{script}: {text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

/// Not a test of its own: the writer half of the test below, run as a separate process inside
/// its keyring session (`CRUCIBLE_TEST_SAVE_KEY` set); does nothing otherwise.
#[test]
#[ignore = "run by a_key_saved_in_secret_service_is_read_back_by_the_cli_after_a_restart"]
fn secret_service_writer() {
    let Ok(key) = std::env::var("CRUCIBLE_TEST_SAVE_KEY") else {
        return;
    };
    let kc = OsKeychain::default();
    assert_eq!(kc.backend(), "secret-service");
    kc.set("openai", &ApiKey::new(key)).unwrap();
    println!("saved in {}", kc.backend());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_saved_in_secret_service_is_read_back_by_the_cli_after_a_restart() {
    let server = Loopback::start_with_key(Duration::ZERO, Some(SECRET.into()))
        .await
        .unwrap();
    let home = tempfile::tempdir().unwrap();
    // Session 1: the library files the key through the Secret Service API (as Settings does).
    let me = std::env::current_exe().unwrap();
    let saved = in_keyring_session(
        home.path(),
        &format!(
            "'{}' providers::secret_service_writer --exact --ignored --nocapture --test-threads 1",
            me.display()
        ),
        &[("CRUCIBLE_TEST_SAVE_KEY", SECRET)],
    )
    .await;
    assert!(saved.contains("saved in secret-service"), "{saved}");
    // Session 2, a new keyring daemon over the same files: a fresh CLI process reads it back.
    let out = in_keyring_session(
        home.path(),
        &format!(
            "'{}' models test --provider openai --base-url {} --model m --json",
            env!("CARGO_BIN_EXE_crucible"),
            server.base_url()
        ),
        &[],
    )
    .await;
    let v: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    assert_eq!(v["ok"], true, "{out}");
    assert_eq!(
        v["key_source"],
        serde_json::json!({"kind": "keychain", "detail": "secret-service"})
    );
    assert!(!out.contains(SECRET));
    assert_eq!(server.requests(), 1);
}
