// drive.mjs URL [accept|decline]
//
// Drives the report tool of an elicitgen server end to end with the
// official MCP Tasks client, @modelcontextprotocol/ext-tasks, over the
// TypeScript SDK v2 client (both pinned in package.json), on protocol
// 2026-07-28 over streamable HTTP:
//
//   tools/call report {"topic":"Q3 revenue","seconds":2}
//     -> input_required, key "format" (MRTR, before the task): accept markdown
//     -> CreateTaskResult (resultType "task")
//   tasks/get ... -> input_required, key "salaries" (inside the task):
//     accept {"include": true}, or decline in the decline mode
//   tasks/get ... -> completed, with the tool result
//
// and checks that the call went through a task, that each question was
// asked exactly once with its key, method and form, and that the result's
// text says "markdown" and "salaries included" ("salaries left out" when
// declined). Prints a transcript; exits 0 when every check holds, 1 with
// the reasons otherwise. examples/report TestExtTasksClient runs it.
//
// MCP_BEARER_TOKEN, when set, is sent as Authorization: Bearer on every
// request (examples/report serves authenticated users only).

import {
  Client,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import {
  createTaskSessionFromClient,
  resultFromTaskOutcome,
} from "@modelcontextprotocol/ext-tasks/client";

const [url, mode = "accept"] = process.argv.slice(2);
if (url === undefined || (mode !== "accept" && mode !== "decline")) {
  console.error("usage: node drive.mjs URL [accept|decline]");
  process.exit(2);
}

const PROTOCOL = "2026-07-28";
const TASKS = "io.modelcontextprotocol/tasks";
const clientInfo = { name: "elicitgen-ext-tasks-drive", version: "1.0.0" };
const clientCapabilities = {
  elicitation: { form: {} },
  extensions: { [TASKS]: {} },
};

const failures = [];
const check = (ok, what) => {
  if (!ok) failures.push(what);
  return ok;
};
const t0 = Date.now();
const log = (line) =>
  console.log(`${String(Date.now() - t0).padStart(5)}ms ${line}`);
const short = (v) => {
  const s = JSON.stringify(v);
  return s.length > 400 ? s.slice(0, 400) + "…" : s;
};

const watchdog = setTimeout(() => {
  console.error(`FAIL: no outcome after 25 s (mode ${mode})`);
  process.exit(1);
}, 25_000);

// What went over the wire (the raw path ext-tasks needs on 2026-07-28).
const wire = {
  toolCallResultTypes: [], // resultType of each tools/call response
  inputRequests: [], // {where, key, request} of every input request seen
  statuses: [], // task statuses tasks/get answered, in order
  errors: [], // JSON-RPC errors
};

// rawDispatch: ext-tasks sends tools/call and tasks/* of a 2026-07-28
// Tasks server through the host, because the SDK's codecs do not know
// resultType "task". This one is a second streamable HTTP transport of the
// same SDK, outside the Client's request machinery: the transport derives
// MCP-Protocol-Version, Mcp-Method and Mcp-Name from the framed body.
const token = process.env.MCP_BEARER_TOKEN;
const transportOptions = token
  ? { requestInit: { headers: { Authorization: `Bearer ${token}` } } }
  : {};
const raw = new StreamableHTTPClientTransport(new URL(url), transportOptions);
const pending = new Map();
let rawId = 0;
raw.onmessage = (msg) => {
  const p = pending.get(msg?.id);
  if (p !== undefined) {
    pending.delete(msg.id);
    p.resolve(msg);
  }
};
raw.onerror = () => {}; // send() rejects too; reported there
await raw.start();

async function rawDispatch(request, options = {}) {
  const id = `drive-${++rawId}`;
  const message = { jsonrpc: "2.0", id, ...request };
  const answer = new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    options.signal?.addEventListener(
      "abort",
      () => {
        pending.delete(id);
        reject(options.signal.reason ?? new Error("aborted"));
      },
      { once: true },
    );
  });
  answer.catch(() => {});
  const extra = { ...(options.context?.headers ?? {}) };
  await raw.send(message, {
    headers: extra,
    ...(options.signal ? { requestSignal: options.signal } : {}),
  });
  const resp = await answer;
  observe(request, resp);
  if (resp.error !== undefined) return { kind: "error", error: resp.error };
  return { kind: "result", result: resp.result };
}

let lastStatus;
function observe(request, resp) {
  const { method, params } = request;
  if (resp.error !== undefined) {
    wire.errors.push({ method, error: resp.error });
    log(`<- ${method} error ${short(resp.error)}`);
    return;
  }
  const r = resp.result ?? {};
  if (method === "tools/call") {
    wire.toolCallResultTypes.push(r.resultType);
    const answered = params?.inputResponses
      ? ` inputResponses=${short(params.inputResponses)}`
      : "";
    log(`-> tools/call ${params?.name} ${short(params?.arguments)}${answered}`);
    if (r.resultType === "input_required") {
      for (const [key, req] of Object.entries(r.inputRequests ?? {}))
        wire.inputRequests.push({ where: "tools/call", key, request: req });
      log(
        `<- tools/call input_required keys=${Object.keys(r.inputRequests ?? {}).join(",")} requestState=${r.requestState ? "yes" : "no"}`,
      );
    } else if (r.resultType === "task") {
      log(
        `<- tools/call CreateTaskResult taskId=${r.taskId} status=${r.status} ttlMs=${r.ttlMs} pollIntervalMs=${r.pollIntervalMs}`,
      );
    } else {
      log(`<- tools/call ${r.resultType} ${short(r)}`);
    }
  } else if (method === "tasks/get") {
    wire.statuses.push(r.status);
    if (r.status === "input_required") {
      for (const [key, req] of Object.entries(r.inputRequests ?? {}))
        wire.inputRequests.push({ where: "tasks/get", key, request: req });
    }
    const line = `<- tasks/get status=${r.status}${r.statusMessage ? ` "${r.statusMessage}"` : ""}${r.status === "input_required" ? ` keys=${Object.keys(r.inputRequests ?? {}).join(",")}` : ""}`;
    if (r.status !== lastStatus || r.status === "input_required") log(line);
    lastStatus = r.status;
  } else if (method === "tasks/update") {
    log(`-> tasks/update inputResponses=${short(params?.inputResponses)}`);
    log(`<- tasks/update ${short(r)}`);
  } else {
    log(`<- ${method} ${short(r)}`);
  }
}

// The application's answers, by input key; each call is recorded.
const asked = [];
async function onInputRequest(request, context) {
  const key = context.inputId;
  asked.push({ key, kind: request.kind, scope: context.scope, delivery: context.delivery, params: request.params });
  log(
    `?? ${request.kind} key=${key} (${context.scope}, ${context.delivery}): "${request.params?.message}" schema=${short(request.params?.requestedSchema)}`,
  );
  let answer;
  if (request.kind !== "elicitation") answer = { action: "cancel" };
  else if (key === "format")
    answer = { action: "accept", content: { format: "markdown" } };
  else if (key === "salaries")
    answer =
      mode === "decline"
        ? { action: "decline" }
        : { action: "accept", content: { include: true } };
  else answer = { action: "cancel" };
  log(`!! answer key=${key}: ${JSON.stringify(answer)}`);
  return answer;
}

const client = new Client(clientInfo, {
  capabilities: clientCapabilities,
  versionNegotiation: { mode: { pin: PROTOCOL } },
});
let session;
let text;
let callFailed = false;
try {
  await client.connect(new StreamableHTTPClientTransport(new URL(url), transportOptions));
  log(
    `connected: era=${client.getProtocolEra()} protocol=${client.getNegotiatedProtocolVersion()} server tasks extension=${JSON.stringify(client.getServerCapabilities()?.extensions?.[TASKS])}`,
  );
  session = createTaskSessionFromClient(client, {
    endpointId: url,
    rawDispatch,
    v2RequestFraming: {
      protocolVersion: PROTOCOL,
      clientInfo,
      clientCapabilities,
    },
    onInputRequest,
    onError: (e) => {
      failures.push(`ext-tasks reported: ${e?.stack ?? e}`);
    },
  });

  const execution = await session.callTool("report", {
    topic: "Q3 revenue",
    seconds: 2,
  });
  log(
    `execution kind=${execution.kind}${execution.kind === "task" ? ` taskId=${execution.handle.taskId}` : ""}`,
  );
  check(
    execution.kind === "task" && typeof execution.handle?.taskId === "string" && execution.handle.taskId !== "",
    `the call did not run as a task (execution.kind=${execution.kind})`,
  );
  const { outcome, lastTask } = await execution.settle({
    onEvent: (event) => {
      if (event.type === "task")
        log(
          `   task event status=${event.task.status}${event.task.statusMessage ? ` "${event.task.statusMessage}"` : ""}`,
        );
    },
  });
  log(`outcome status=${outcome.status} lastTask.status=${lastTask?.status}`);
  const result = resultFromTaskOutcome(outcome);
  const first = result?.content?.[0];
  log(`result ${short(result)}`);
  if (check(first?.type === "text", `first content is not text: ${short(first)}`))
    text = first.text;
} catch (e) {
  callFailed = true;
  failures.push(`call failed: ${e?.stack ?? e}${e?.code !== undefined ? ` (code ${e.code}, data ${short(e.data)})` : ""}`);
} finally {
  await session?.close().catch(() => {});
  await client.close().catch(() => {});
  await raw.close().catch(() => {});
}

// The checks of what was asked and answered (after a failed call, the
// failure says it all).
if (!callFailed) checkExchange();
function checkExchange() {
  check(
    wire.toolCallResultTypes.includes("task"),
    `no tools/call answered with resultType "task" (saw ${JSON.stringify(wire.toolCallResultTypes)})`,
  );
  check(
    wire.toolCallResultTypes[0] === "input_required",
    `the first tools/call did not ask (input_required) before the task (saw ${JSON.stringify(wire.toolCallResultTypes)})`,
  );
  const keys = asked.map((a) => a.key);
  check(
    JSON.stringify(keys) === JSON.stringify(["format", "salaries"]),
    `questions asked: ${JSON.stringify(keys)}, want ["format","salaries"] once each`,
  );
  const props = (a) => {
    const s = a?.params?.requestedSchema ?? {};
    return { names: Object.keys(s.properties ?? {}), s };
  };
  const fmt = asked.find((a) => a.key === "format");
  if (check(fmt !== undefined, "format was not asked")) {
    const { names, s } = props(fmt);
    check(fmt.kind === "elicitation", `format: kind ${fmt.kind}, want elicitation`);
    check(fmt.scope === "request" && fmt.delivery === "request-retry", `format: asked as ${fmt.scope}/${fmt.delivery}, want request/request-retry (MRTR before the task)`);
    check(JSON.stringify(names) === '["format"]', `format: properties ${JSON.stringify(names)}`);
    check(JSON.stringify(s.required) === '["format"]', `format: required ${JSON.stringify(s.required)}`);
    check(s.properties?.format?.type === "string", `format: type ${s.properties?.format?.type}`);
    // A plain enum, or a titled one (oneOf of const, SEP-1330).
    const f = s.properties?.format ?? {};
    const values = f.enum ?? f.oneOf?.map((o) => o.const);
    check(
      JSON.stringify(values) === '["markdown","html","text"]',
      `format: values ${JSON.stringify(values)}, want markdown, html, text`,
    );
  }
  const sal = asked.find((a) => a.key === "salaries");
  if (check(sal !== undefined, "salaries was not asked")) {
    const { names, s } = props(sal);
    check(sal.kind === "elicitation", `salaries: kind ${sal.kind}, want elicitation`);
    check(sal.scope === "task" && sal.delivery === "task-update", `salaries: asked as ${sal.scope}/${sal.delivery}, want task/task-update (inside the task)`);
    check(JSON.stringify(names) === '["include"]', `salaries: properties ${JSON.stringify(names)}`);
    check(JSON.stringify(s.required) === '["include"]', `salaries: required ${JSON.stringify(s.required)}`);
    check(s.properties?.include?.type === "boolean", `salaries: type ${s.properties?.include?.type}`);
  }
  for (const { where, key, request } of wire.inputRequests) {
    check(request?.method === "elicitation/create", `${where} input request ${key}: method ${request?.method}, want elicitation/create`);
    check(request?.params?.mode === undefined || request.params.mode === "form", `${where} input request ${key}: mode ${request?.params?.mode}`);
  }
  check(
    wire.inputRequests.some((r) => r.where === "tools/call" && r.key === "format"),
    "format was not asked in a tools/call input_required result",
  );
  check(
    wire.inputRequests.some((r) => r.where === "tasks/get" && r.key === "salaries"),
    "salaries was not asked in a tasks/get input_required task",
  );
  check(wire.statuses.includes("input_required"), `tasks/get never showed input_required (saw ${JSON.stringify(wire.statuses)})`);
  check(wire.statuses.at(-1) === "completed", `last tasks/get status ${wire.statuses.at(-1)}, want completed`);
  check(wire.errors.length === 0, `JSON-RPC errors: ${short(wire.errors)}`);
  const want = mode === "decline" ? "salaries left out" : "salaries included";
  if (text !== undefined) {
    check(text.includes("markdown"), `result text lacks "markdown": ${JSON.stringify(text)}`);
    check(text.includes(want), `result text lacks "${want}": ${JSON.stringify(text)}`);
  }
}

clearTimeout(watchdog);
log(`statuses seen: ${wire.statuses.filter((s, i, all) => s !== all[i - 1]).join(" -> ")}`);
if (failures.length > 0) {
  console.error(`FAIL (${mode}):`);
  for (const f of failures) console.error(`  - ${f}`);
  process.exit(1);
}
log(`ok (${mode}): ${JSON.stringify(text)}`);
process.exit(0);
