// Entry point: a hash router over the left nav. Each page renders into #page.
import "./style.css";
import { getSystemStatus, resultsWarm } from "./ipc";
import { renderHome } from "./pages/home";
import { renderRuns } from "./pages/runs";
import { renderResults } from "./pages/results";
import { renderSettings } from "./pages/settings";
import { renderTasks } from "./pages/tasks";
import { perfReady } from "./perf";

type Route = "home" | "runs" | "results" | "tasks" | "settings";

const pages: Record<Route, (root: HTMLElement) => void | Promise<void>> = {
  home: renderHome,
  runs: renderRuns,
  results: renderResults,
  tasks: renderTasks,
  settings: renderSettings,
};

function routeOf(hash: string): Route {
  const name = hash.replace(/^#\/?/, "").split("/")[0];
  return name in pages && name !== "" ? (name as Route) : "home";
}

function show(): Promise<void> {
  const route = routeOf(window.location.hash);
  for (const a of document.querySelectorAll<HTMLAnchorElement>("nav a[data-route]")) {
    if (a.dataset.route === route) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
  const page = document.getElementById("page")!;
  page.dataset.route = route;
  // Pages mount their skeleton synchronously and fill it in when data arrives; a late answer
  // for a page the user already left lands in detached elements and is dropped.
  return Promise.resolve(pages[route](page));
}

window.addEventListener("hashchange", () => {
  void show();
  // Keyboard and screen-reader users land on the new page, not back at the top of the nav.
  document.getElementById("page")!.focus({ preventScroll: true });
});
// The first screen with its data: the perf hook's "ready" (a no-op outside `crucible bench app`).
const firstScreen = show();
void firstScreen.then(() => perfReady(routeOf(window.location.hash)));

// The version in the nav foot; failures show on the pages that need the status, not here.
void getSystemStatus().then((r) => {
  if (!r.ok) return;
  // The version links to the About box (Settings → System) with the commit and build date.
  const about = document.createElement("a");
  about.href = "#/settings";
  about.id = "nav-about";
  about.title = `About Crucible: commit ${r.value.build.commit.slice(0, 12)}, built ${r.value.build.build_date}`;
  about.textContent = `v${r.value.version} · About`;
  document.getElementById("nav-version")!.replaceChildren(about);
});

// Once the first screen is up, the Results page's data is read into memory in the background so
// its first view is instant even on a big store (the core does the work off the UI thread).
void firstScreen.then(() => setTimeout(() => void resultsWarm(), 300));
