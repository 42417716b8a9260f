// Drives `grimoire serve` with the official MCP TypeScript SDK client, over
// stdio and over streamable HTTP: lists the six tools with their read-only
// annotations and calls each one.
// Usage: node mcp-client-check.mjs GRIMOIRE_BINARY LIBRARY_DIR
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { execFileSync, spawn } from "node:child_process";
import { isDeepStrictEqual } from "node:util";

const [bin, library] = process.argv.slice(2);
const want = ["get_book_outline", "get_section", "library_status", "list_books", "read_chunk_neighbors", "search"];

function fail(msg) {
  console.error("FAIL: " + msg);
  process.exit(1);
}

// The version the server gives clients is the one --version prints.
const built = execFileSync(bin, ["--version"], { encoding: "utf8" }).trim().replace(/^grimoire version /, "");

async function exercise(client, label) {
  const info = client.getServerVersion();
  if (info.version !== built) fail(`${label}: serverInfo.version ${info.version}, --version ${built}`);
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name).sort();
  if (JSON.stringify(names) !== JSON.stringify(want)) fail(`${label}: tools ${names}`);
  for (const t of tools) {
    const a = t.annotations || {};
    if (a.readOnlyHint !== true || a.destructiveHint !== false || a.idempotentHint !== true || a.openWorldHint !== false) {
      fail(`${label}: ${t.name} annotations ${JSON.stringify(a)}`);
    }
  }
  const call = async (name, args) => {
    const r = await client.callTool({ name, arguments: args });
    if (r.isError) fail(`${label}: ${name} ${JSON.stringify(r.content)}`);
    if (!r.structuredContent) fail(`${label}: ${name} has no structured content`);
    // The readable text first, then the structured content as JSON.
    const texts = r.content.filter((c) => c.type === "text");
    if (texts.length < 2) fail(`${label}: ${name} has ${texts.length} text blocks, want the readable one and the JSON`);
    let serialized;
    try {
      serialized = JSON.parse(texts[texts.length - 1].text);
    } catch (e) {
      fail(`${label}: ${name}'s last text block is no JSON: ${e}`);
    }
    if (!isDeepStrictEqual(serialized, r.structuredContent)) fail(`${label}: ${name}'s JSON block is not its structured content`);
    return r.structuredContent;
  };
  const books = await call("list_books", {});
  if (!books.books.length) fail(`${label}: no books`);
  const slug = books.books[0].slug;
  const outline = await call("get_book_outline", { book: slug });
  const ch = outline.chapters[0];
  // A chapter listed without sections is one section: index 0.
  const section = ch.sections && ch.sections.length ? ch.sections[0].index : 0;
  await call("get_section", { book: slug, chapter_index: ch.index, section_index: section });
  const found = await call("search", { query: books.books[0].title, queries: ["a second phrasing"], limit: 5 });
  if (!found.results.length) fail(`${label}: search found nothing`);
  const hit = found.results[0];
  if (!hit.citation || !hit.book) fail(`${label}: hit without citation`);
  await call("read_chunk_neighbors", { book: hit.book, chunk_index: hit.chunk_index, before: 1, after: 1 });
  await call("library_status", {});
  const bad = await client.callTool({ name: "get_book_outline", arguments: { book: "../../etc/passwd" } });
  if (!bad.isError) fail(`${label}: a path-like slug was not a tool error`);
  console.log(`ok ${label}: version ${info.version}, 6 tools, read-only annotations, every tool answered with its JSON (${books.books.length} books)`);
}

// stdio
{
  const client = new Client({ name: "ci-check", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command: bin, args: ["--library", library, "serve"], stderr: "inherit" }));
  await exercise(client, "stdio");
  await client.close();
}

// streamable HTTP
{
  const srv = spawn(bin, ["--library", library, "serve", "--http", "127.0.0.1:0"], { stdio: ["ignore", "inherit", "pipe"] });
  const url = await new Promise((resolve, reject) => {
    let buf = "";
    const timer = setTimeout(() => reject(new Error("server did not start: " + buf)), 20000);
    srv.stderr.on("data", (d) => {
      buf += d;
      const m = buf.match(/(http:\/\/\S+\/mcp)/);
      if (m) { clearTimeout(timer); resolve(m[1]); }
    });
  });
  const client = new Client({ name: "ci-check", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  await exercise(client, "http");
  await client.close();
  srv.kill("SIGTERM");
}
