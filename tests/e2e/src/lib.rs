//! The E2E harness for the real desktop app: it starts `tauri-driver` (which drives Debian's
//! `WebKitWebDriver`) on free loopback ports, opens a WebDriver session that launches
//! `target/debug/crucible-app`, and tears everything down in an order that leaves no orphans:
//! close the session first (that ends the app), then SIGTERM tauri-driver (SIGKILL would orphan
//! WebKitWebDriver). Tests run under `xvfb-run -a`, so a hung app dies with its display.
//!
//! It owns no assertions: tests collect what they saw, call [`App::close`], then assert.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use fantoccini::{Client, ClientBuilder, Locator};

/// How long an element may take to appear (the app's cold start included).
pub const WAIT: Duration = Duration::from_secs(20);
/// Upper bound for one WebDriver screenshot; WebKit can hang on them (tauri-spike pitfall 7).
const SCREENSHOT_TIMEOUT: Duration = Duration::from_secs(15);
/// Upper bound for closing the session.
const CLOSE_TIMEOUT: Duration = Duration::from_secs(10);

/// The workspace root (two levels above this crate).
pub fn workspace_root() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.join("../..")
        .canonicalize()
        .unwrap_or_else(|_| here.join("../.."))
}

/// The app binary: `$CRUCIBLE_APP`, else `debug/crucible-app` in `$CARGO_TARGET_DIR` or `target/`.
pub fn app_binary() -> Result<PathBuf> {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(|t| workspace_root().join(t)) // a relative dir is relative to where cargo ran: the root
        .unwrap_or_else(|| workspace_root().join("target"));
    let path = std::env::var_os("CRUCIBLE_APP")
        .map(PathBuf::from)
        .unwrap_or_else(|| target.join("debug/crucible-app"));
    if !path.is_file() {
        bail!(
            "app binary {} not found; build it with `cargo build -p crucible-app --features custom-protocol` \
             (without custom-protocol the window loads http://localhost:1420 and shows nothing)",
            path.display()
        );
    }
    Ok(path)
}

/// tauri-driver: `$TAURI_DRIVER`, else `.tools/bin/tauri-driver`, else `PATH`.
pub fn tauri_driver() -> Result<PathBuf> {
    if let Some(p) = std::env::var_os("TAURI_DRIVER") {
        return Ok(p.into());
    }
    let local = workspace_root().join(".tools/bin/tauri-driver");
    if local.is_file() {
        return Ok(local);
    }
    let on_path = std::env::var_os("PATH")
        .map(|p| {
            std::env::split_paths(&p)
                .map(|d| d.join("tauri-driver"))
                .find(|p| p.is_file())
        })
        .unwrap_or_default();
    on_path.context(
        "tauri-driver not found (looked at $TAURI_DRIVER, .tools/bin, PATH); install it with \
         `cargo install tauri-driver --locked --root .tools` (and `apt-get install webkit2gtk-driver`)",
    )
}

/// The status the core reports for `env`, from `crucible-app --print-status` (which calls
/// `crucible_views::status::system_status` directly, without the webview).
pub fn reported_status(env: &BTreeMap<String, String>) -> Result<serde_json::Value> {
    let app = app_binary()?;
    let out = Command::new(&app)
        .arg("--print-status")
        .envs(env)
        .stdin(Stdio::null())
        .output()
        .with_context(|| format!("running {} --print-status", app.display()))?;
    if !out.status.success() {
        bail!(
            "{} --print-status failed ({}): {}{}",
            app.display(),
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    serde_json::from_slice(&out.stdout).context("--print-status printed invalid JSON")
}

/// Where screenshots go: `target/e2e-screenshots/`.
pub fn screenshot_dir() -> PathBuf {
    workspace_root().join("target/e2e-screenshots")
}

/// Two distinct free loopback ports. Both listeners are held until both ports are known, so the
/// OS cannot hand out the same port twice (which made WebKitWebDriver fail to start).
fn free_ports() -> Result<(u16, u16)> {
    let a = TcpListener::bind("127.0.0.1:0")?;
    let b = TcpListener::bind("127.0.0.1:0")?;
    Ok((a.local_addr()?.port(), b.local_addr()?.port()))
}

/// A running tauri-driver; dropping it sends SIGTERM so it also stops WebKitWebDriver.
#[derive(Debug)]
struct Driver {
    child: Child,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .arg("-TERM")
            .arg(self.child.id().to_string())
            .status();
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The app under test, driven through one WebDriver session.
#[derive(Debug)]
pub struct App {
    client: Option<Client>,
    driver: Driver,
}

impl App {
    /// Starts tauri-driver with `env` added to its environment (the app inherits it) and opens a
    /// session, which launches the app. One retry with fresh ports: other processes on a busy
    /// machine can take a port between our probe and tauri-driver's bind.
    ///
    /// The first-start demo is off unless `env` sets `CRUCIBLE_FIRST_START_DEMO`: a test's fresh
    /// data dir would otherwise get a demo run it did not ask for.
    pub async fn launch(env: &BTreeMap<String, String>) -> Result<Self> {
        let mut env = env.clone();
        env.entry("CRUCIBLE_FIRST_START_DEMO".into())
            .or_insert_with(|| "0".into());
        // Exports skip the native save dialog (WebDriver cannot answer it) and go to a Downloads
        // folder inside the test's data dir, never the tester's own.
        env.entry("CRUCIBLE_EXPORT_DIALOG".into())
            .or_insert_with(|| "off".into());
        if let Some(data) = env.get("CRUCIBLE_DATA_DIR").cloned() {
            env.entry("XDG_DOWNLOAD_DIR".into())
                .or_insert_with(|| format!("{data}/Downloads"));
        }
        Self::launch_with(&app_binary()?, &env, false).await
    }

    /// Launches an installed app (`binary`, e.g. `/usr/bin/crucible-app`) the way a user's
    /// desktop would: with only `env` as its environment (nothing inherited from the test) and
    /// `/` as its working directory.
    pub async fn launch_installed(binary: &Path, env: &BTreeMap<String, String>) -> Result<Self> {
        Self::launch_with(binary, env, true).await
    }

    async fn launch_with(app: &Path, env: &BTreeMap<String, String>, clean: bool) -> Result<Self> {
        match Self::try_launch(app, env, clean).await {
            Ok(app) => Ok(app),
            Err(first) => {
                eprintln!("e2e: first launch failed, retrying once: {first:#}");
                Self::try_launch(app, env, clean)
                    .await
                    .with_context(|| format!("second attempt (the first failed with: {first:#})"))
            }
        }
    }

    async fn try_launch(app: &Path, env: &BTreeMap<String, String>, clean: bool) -> Result<Self> {
        let driver_bin = tauri_driver()?;
        let (port, native_port) = free_ports()?;
        let mut cmd = Command::new(&driver_bin);
        if clean {
            cmd.env_clear().current_dir("/");
        }
        cmd.args([
            "--port",
            &port.to_string(),
            "--native-port",
            &native_port.to_string(),
        ])
        .envs(env)
        .stdin(Stdio::null())
        .stdout(Stdio::null());
        let mut driver = Driver {
            child: cmd
                .spawn()
                .with_context(|| format!("starting {}", driver_bin.display()))?,
        };
        let deadline = Instant::now() + WAIT;
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if let Some(status) = driver.child.try_wait()? {
                bail!("tauri-driver exited ({status}) before listening on port {port}");
            }
            if Instant::now() > deadline {
                bail!("tauri-driver did not listen on port {port} within {WAIT:?}");
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let caps = serde_json::json!({ "tauri:options": { "application": app } });
        let caps = caps.as_object().cloned().unwrap_or_default();
        let client = ClientBuilder::native()
            .capabilities(caps)
            .connect(&format!("http://127.0.0.1:{port}"))
            .await
            .context(
                "opening a WebDriver session (is webkit2gtk-driver installed and DISPLAY set?)",
            )?;
        Ok(Self {
            client: Some(client),
            driver,
        })
    }

    fn client(&self) -> Result<&Client> {
        self.client.as_ref().context("session already closed")
    }

    /// Waits for `css` to match and returns the element's rendered text. Pages that re-render
    /// while live data arrives can replace the element between finding and reading it; that
    /// (WebKit: "Node … was not found") is retried a few times.
    pub async fn text(&self, css: &str) -> Result<String> {
        let mut attempt = 0;
        loop {
            let el = self
                .client()?
                .wait()
                .at_most(WAIT)
                .for_element(Locator::Css(css))
                .await
                .with_context(|| format!("waiting for `{css}`"))?;
            match el.text().await {
                Ok(t) => return Ok(t.trim().to_string()),
                Err(e) if attempt < 5 && e.to_string().contains("was not found") => attempt += 1,
                Err(e) => return Err(e.into()),
            }
        }
    }

    /// Waits for `css` to match and returns its attribute `name` (empty if absent).
    pub async fn attr(&self, css: &str, name: &str) -> Result<String> {
        let el = self
            .client()?
            .wait()
            .at_most(WAIT)
            .for_element(Locator::Css(css))
            .await
            .with_context(|| format!("waiting for `{css}`"))?;
        Ok(el.attr(name).await?.unwrap_or_default())
    }

    /// Waits for `css` to match and clicks it.
    pub async fn click(&self, css: &str) -> Result<()> {
        let el = self.element(css).await?;
        // The new-run form's footer is sticky: an element scrolled only to the window's bottom
        // edge could sit under it, so it is centred first.
        self.client()?
            .execute(
                "document.querySelector(arguments[0])?.scrollIntoView({block: 'center'});",
                vec![css.into()],
            )
            .await
            .with_context(|| format!("scrolling `{css}` into view"))?;
        match el.click().await {
            Ok(()) => Ok(()),
            // The page re-rendered between finding and clicking (WebKit: "Node … was not
            // found"): find the new element once and click that.
            Err(e) if e.to_string().contains("was not found") => self
                .element(css)
                .await?
                .click()
                .await
                .with_context(|| format!("clicking `{css}` (found again after a re-render)")),
            Err(e) => Err(e).with_context(|| format!("clicking `{css}`")),
        }
    }

    async fn element(&self, css: &str) -> Result<fantoccini::elements::Element> {
        self.client()?
            .wait()
            .at_most(WAIT)
            .for_element(Locator::Css(css))
            .await
            .with_context(|| format!("waiting for `{css}`"))
    }

    /// Waits for the input `css`, clears it and types `text`. The field is scrolled to the
    /// middle of the window first: WebKit's WebDriver does not scroll a field into view to clear
    /// it, and a field above a long form's current scroll was refused ("not interactable").
    pub async fn fill(&self, css: &str, text: &str) -> Result<()> {
        let el = self.element(css).await?;
        let arg = serde_json::to_value(&el).context("the element as a script argument")?;
        self.client()?
            .execute(
                "arguments[0].scrollIntoView({block: 'center'}); return true",
                vec![arg],
            )
            .await
            .with_context(|| format!("scrolling to `{css}`"))?;
        el.clear()
            .await
            .with_context(|| format!("clearing `{css}`"))?;
        // WebDriver refuses to type nothing: an empty text only clears the field.
        if !text.is_empty() {
            el.send_keys(text)
                .await
                .with_context(|| format!("typing into `{css}`"))?;
        }
        Ok(())
    }

    /// Waits for the `<select>` `css` and picks the option with `value`.
    pub async fn select(&self, css: &str, value: &str) -> Result<()> {
        self.element(css)
            .await?
            .select_by_value(value)
            .await
            .with_context(|| format!("selecting {value:?} in `{css}`"))?;
        Ok(())
    }

    /// Polls until the text of `css` satisfies `ok` (at most `within`); returns the last text.
    pub async fn wait_text(
        &self,
        css: &str,
        within: Duration,
        ok: impl Fn(&str) -> bool,
    ) -> Result<String> {
        let deadline = Instant::now() + within;
        let mut last = String::new();
        loop {
            if let Ok(el) = self.client()?.find(Locator::Css(css)).await {
                if let Ok(t) = el.text().await {
                    last = t.trim().to_string();
                    if ok(&last) {
                        return Ok(last);
                    }
                }
            }
            if Instant::now() > deadline {
                bail!("`{css}` did not reach the expected text within {within:?}; last: {last:?}");
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Whether `css` matches anything right now (no waiting).
    pub async fn exists(&self, css: &str) -> Result<bool> {
        Ok(self.client()?.find(Locator::Css(css)).await.is_ok())
    }

    /// The page's current HTML.
    pub async fn source(&self) -> Result<String> {
        Ok(self.client()?.source().await?)
    }

    /// Sends keys to whatever has focus (keyboard-only flows: Tab, Enter, text).
    pub async fn keys(&self, keys: &str) -> Result<()> {
        let el = self.client()?.active_element().await?;
        el.send_keys(keys)
            .await
            .context("sending keys to the focused element")?;
        Ok(())
    }

    /// The id of the focused element ("" when it has none).
    pub async fn focused_id(&self) -> Result<String> {
        let el = self.client()?.active_element().await?;
        Ok(el.attr("id").await?.unwrap_or_default())
    }

    /// Runs a script in the page and returns its value.
    pub async fn eval(&self, script: &str) -> Result<serde_json::Value> {
        Ok(self.client()?.execute(script, vec![]).await?)
    }

    /// Sets the value of the input, textarea or select `css` at once and fires `input` and
    /// `change`, as a paste or a choice would (typing a whole task file key by key is slow).
    pub async fn set_value(&self, css: &str, value: &str) -> Result<()> {
        self.element(css).await?;
        let js = "const el = document.querySelector(arguments[0]); el.value = arguments[1]; \
                  el.dispatchEvent(new Event('input', {bubbles: true})); \
                  el.dispatchEvent(new Event('change', {bubbles: true}));";
        self.client()?
            .execute(js, vec![css.into(), value.into()])
            .await
            .with_context(|| format!("setting the value of `{css}`"))?;
        Ok(())
    }

    /// Runs `js` in the page (arguments as `arguments[i]`) and returns its JSON result.
    pub async fn run_js(
        &self,
        js: &str,
        args: Vec<serde_json::Value>,
    ) -> Result<serde_json::Value> {
        Ok(self.client()?.execute(js, args).await?)
    }

    /// Waits until the text of `css` satisfies `ok` (polling up to `timeout`); returns it.
    pub async fn text_when(
        &self,
        css: &str,
        timeout: Duration,
        ok: impl Fn(&str) -> bool,
    ) -> Result<String> {
        self.wait_text(css, timeout, ok).await
    }

    /// Saves a screenshot of the window to `target/e2e-screenshots/<name>.png`; returns the path.
    /// Waits for two animation frames first: WebKit's WebDriver screenshot shows the last painted
    /// frame, which can predate DOM changes the test has already seen.
    pub async fn screenshot(&self, name: &str) -> Result<PathBuf> {
        let settle = "const done = arguments[arguments.length - 1]; \
                      requestAnimationFrame(() => requestAnimationFrame(() => done(true)));";
        tokio::time::timeout(
            SCREENSHOT_TIMEOUT,
            self.client()?.execute_async(settle, vec![]),
        )
        .await
        .context("waiting for the page to paint")??;
        let png = tokio::time::timeout(SCREENSHOT_TIMEOUT, self.client()?.screenshot())
            .await
            .with_context(|| {
                format!("screenshot `{name}` took longer than {SCREENSHOT_TIMEOUT:?}")
            })??;
        let dir = screenshot_dir();
        std::fs::create_dir_all(&dir)?;
        let path = dir.join(format!("{name}.png"));
        std::fs::write(&path, png)?;
        Ok(path)
    }

    /// What on the current screen a person who never opens a terminal should not have to read
    /// or reach (empty when the screen is fine):
    /// - a raw `snake_case` key as a header, label, button, tab or option (identifiers and file
    ///   paths shown as data — monospaced, `.ident` — are not labels);
    /// - a raw base-unit amount (15 or more digits) or a raw JSON object in the page's words
    ///   (code, `pre`, identifiers and collapsed `<details>` raw views are data and not read);
    /// - a terminal command;
    /// - the page scrolling sideways, or a visible button or link-button past the window's right
    ///   edge or outside the visible part of a sideways-scrolling box (a table's last column).
    pub async fn screen_problems(&self) -> Result<Vec<String>> {
        let found = self
            .eval(
                "const seen = []; \
                 const data = 'code, pre, .mono, .ident, textarea, script, style, details:not([open]) > :not(summary)'; \
                 const visible = (e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden'; \
                 const words = (e) => { \
                   const c = e.cloneNode(true); \
                   for (const d of c.querySelectorAll('code, pre, .mono, .ident, textarea')) d.remove(); \
                   return (c.textContent || '').trim(); }; \
                 for (const e of document.querySelectorAll('th, label, legend, h1, h2, h3, h4, button, summary, dt, .tab, .field-label, option')) { \
                   if ((!visible(e) && e.tagName !== 'OPTION') || e.closest('code, pre, .mono, .ident')) continue; \
                   const t = words(e).split(/\\s+/).filter((w) => !w.includes('/')).join(' '); \
                   if (/\\b[a-z][a-z0-9]*_[a-z0-9_]+\\b/.test(t)) seen.push(`key in ${e.tagName.toLowerCase()}: ${t.slice(0, 80)}`); \
                 } \
                 const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT); \
                 let text = ''; \
                 for (let n = walker.nextNode(); n; n = walker.nextNode()) { \
                   const p = n.parentElement; \
                   if (!p || p.closest(data) || !visible(p)) continue; \
                   text += n.textContent + ' '; \
                 } \
                 for (const m of text.match(/\\d{15,}/g) || []) seen.push(`raw amount: ${m}`); \
                 for (const m of text.match(/\\{\\s*\"[A-Za-z_]+\"\\s*:/g) || []) seen.push(`raw JSON: ${m}`); \
                 for (const cmd of ['npm ci', 'cargo ', 'crucible universe', 'apt-get', 'sudo ']) \
                   if (text.includes(cmd)) seen.push(`terminal command: ${cmd}`); \
                 const width = document.documentElement.clientWidth; \
                 if (document.documentElement.scrollWidth > width + 1) \
                   seen.push(`the page scrolls sideways: ${document.documentElement.scrollWidth} px wide in a ${width} px window`); \
                 for (const b of document.querySelectorAll('button, a.btn, a.button, [role=button]')) { \
                   if (!visible(b) || b.closest('details:not([open])')) continue; \
                   const r = b.getBoundingClientRect(); \
                   if (r.width === 0) continue; \
                   const name = (b.textContent || b.getAttribute('aria-label') || '').trim().slice(0, 40); \
                   if (r.right > width + 1) { seen.push(`button past the right edge: ${name}`); continue; } \
                   for (let a = b.parentElement; a && a !== document.body; a = a.parentElement) { \
                     const o = getComputedStyle(a).overflowX; \
                     if ((o === 'auto' || o === 'scroll') && a.scrollWidth > a.clientWidth + 1) { \
                       const box = a.getBoundingClientRect(); \
                       if (r.right > box.right + 1 || r.left < box.left - 1) seen.push(`button reached only by scrolling sideways: ${name}`); \
                       break; \
                     } \
                   } \
                 } \
                 return seen;",
            )
            .await?;
        Ok(found
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default())
    }

    /// The window's inner size in CSS pixels (what the page lays out in).
    pub async fn viewport(&self) -> Result<(u64, u64)> {
        let v = self
            .eval("return [window.innerWidth, window.innerHeight]")
            .await?;
        Ok((
            v[0].as_u64().unwrap_or_default(),
            v[1].as_u64().unwrap_or_default(),
        ))
    }

    /// Ends the session (the app exits) and stops tauri-driver. Call before asserting.
    pub async fn close(mut self) {
        if let Some(client) = self.client.take() {
            let _ = tokio::time::timeout(CLOSE_TIMEOUT, client.close()).await;
        }
        drop(self.driver);
    }
}

/// `crucible models loopback`: a real OpenAI-wire server on 127.0.0.1 that accepts one key. It
/// serves until killed, which dropping this does.
#[derive(Debug)]
pub struct LoopbackServer {
    child: Child,
    /// The server's OpenAI-compatible base URL (`http://127.0.0.1:<port>/v1`).
    pub base_url: String,
}

impl LoopbackServer {
    /// A server that accepts only `key`.
    pub fn start(key: &str) -> Result<Self> {
        Self::spawn(&["models", "loopback", "--key", key])
    }

    /// A server that accepts any request (no key) and waits `latency_ms` before each answer.
    pub fn start_slow(latency_ms: u64) -> Result<Self> {
        Self::spawn(&[
            "models",
            "loopback",
            "--latency-ms",
            &latency_ms.to_string(),
        ])
    }

    fn spawn(args: &[&str]) -> Result<Self> {
        let (child, v) = spawn_cli(args)?;
        let base_url = v["base_url"]
            .as_str()
            .context("no base_url in the loopback's first line")?
            .to_string();
        Ok(Self { child, base_url })
    }
}

/// Starts `crucible ARGS` and reads the JSON object it prints as its first line.
fn spawn_cli(args: &[&str]) -> Result<(Child, serde_json::Value)> {
    let cli: PathBuf = app_binary()?
        .parent()
        .context("app binary has no directory")?
        .join("crucible");
    if !cli.is_file() {
        bail!(
            "{} not found; build it with `cargo build -p crucible -p crucible-app --features crucible-app/custom-protocol`",
            cli.display()
        );
    }
    let mut child = Command::new(&cli)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .with_context(|| format!("starting {}", cli.display()))?;
    let mut line = String::new();
    BufReader::new(child.stdout.take().context("no stdout")?)
        .read_line(&mut line)
        .with_context(|| format!("reading the first line of crucible {args:?}"))?;
    let v: serde_json::Value = serde_json::from_str(line.trim())
        .with_context(|| format!("crucible {args:?} printed {line:?}"))?;
    Ok((child, v))
}

/// `crucible store local-server`: a throwaway PostgreSQL server holding one empty lab store,
/// deleted when this is dropped (the CLI is killed; its watcher stops the server).
#[derive(Debug)]
pub struct LabServer {
    child: Child,
    /// The store's URL (`postgres://postgres:<password>@localhost:5432/<db>?host=<socket dir>`).
    pub url: String,
}

impl LabServer {
    /// Starts one.
    pub fn start() -> Result<Self> {
        let (child, v) = spawn_cli(&["store", "local-server", "--json"])?;
        let url = v["url"]
            .as_str()
            .context("no url in local-server's first line")?
            .to_string();
        Ok(Self { child, url })
    }
}

impl Drop for LabServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for LoopbackServer {
    fn drop(&mut self) {
        drop(self.child.stdin.take());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
