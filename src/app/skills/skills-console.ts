/**
 * The status page's skills section: the caller's skills (and the operator's read-only ones)
 * with their current and latest version, use count and last error, read from `/api/skills` with
 * the page's key (like the run console: the page itself is public and holds no one's skills).
 *
 * Security defaults: descriptions and errors are untrusted text (a program wrote them); the
 * script writes every value with `textContent`, never as HTML, so none can add markup.
 */

/** The section's HTML, or a line saying skills are off. */
export function skillsSection(enabled: boolean): string {
  if (!enabled)
    return `<h2>Skills</h2><p id="skills-off" class="muted">Saved skills are off (SKILLS=off).</p>`;
  return `<h2>Skills</h2>
<p><button id="skills-load" type="button">Load skills</button> <span id="skills-status" class="muted"></span></p>
<div class="table-scroll"><table id="skills-table" class="skills" data-state="idle"><thead><tr><th>name</th><th>version</th><th>uses</th><th>description</th><th>last error</th></tr></thead><tbody></tbody></table></div>
<script>${SKILLS_SCRIPT}</script>`;
}

/** Loads `/api/skills` and fills the table, with `textContent` only. */
const SKILLS_SCRIPT = `(() => {
  const button = document.getElementById("skills-load");
  const status = document.getElementById("skills-status");
  const table = document.getElementById("skills-table");
  const body = table.querySelector("tbody");
  const cell = (text) => { const td = document.createElement("td"); td.textContent = String(text); return td; };
  button.addEventListener("click", async () => {
    status.textContent = "loading …";
    const key = document.getElementById("page-key");
    const headers = key && key.value ? { authorization: "Bearer " + key.value } : {};
    try {
      const response = await fetch("/api/skills", { headers });
      const data = await response.json();
      if (!response.ok) {
        table.dataset.state = "error";
        status.textContent = "failed: " + (data && data.error ? data.error.message : "HTTP " + response.status);
        return;
      }
      body.replaceChildren();
      for (const s of data.skills) {
        const row = document.createElement("tr");
        const version = "v" + s.version + (s.latest !== s.version ? " (latest v" + s.latest + ")" : "") + (s.readOnly ? " read-only" : "") + (s.tool ? " " + s.tool + " only" : "");
        const error = s.lastError ? "v" + s.lastError.version + " " + new Date(s.lastError.at).toISOString() + ": " + s.lastError.message : "";
        row.append(cell(s.name), cell(version), cell(s.uses ?? 0), cell(s.description), cell(error));
        body.append(row);
      }
      table.dataset.state = "loaded";
      status.textContent = data.skills.length + " skill(s)";
    } catch (error) {
      table.dataset.state = "error";
      status.textContent = "failed: " + error.message;
    }
  });
})();`;
