"use client";

import Link from "next/link";
import { useEffect, useRef, useState, type DragEvent } from "react";
import { Badge } from "@/components/ui/Badge";
import { Button } from "@/components/ui/Button";
import { plural } from "@/lib/format";
import { ScrollFrame } from "@/components/ui/ScrollFrame";
import { Card } from "@/components/ui/Card";

type Issue = { path: string; message: string };
type SavedSession = { id: string; eventCount: number; duplicate?: boolean; title: string | null };

type Upload = {
  key: string;
  name: string;
  size: number;
  state: "queued" | "uploading" | "importing" | "done" | "failed";
  /** Bytes sent so far. */
  sent: number;
  /** Events the server has written so far (it writes a large file in windows, after the upload). */
  written: number;
  format: string | null;
  sessions: SavedSession[];
  message: string | null;
  issues: Issue[];
};

type ImportAnswer = {
  format?: string | null;
  sessions?: SavedSession[];
  error?: { code: string; message: string; issues: Issue[] };
};

const MAX_SHOWN_ISSUES = 50;

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/**
 * The issues `message` does not already say. Malformed JSON is said in the message, place and all
 * ("Malformed JSON at line 1, column 9: …"), and was said again as the document's only issue.
 */
function notSaidIn(message: string, issues: Issue[]): Issue[] {
  const said = message.toLowerCase();
  return issues.filter((i) => i.path !== "" || !said.includes(i.message.toLowerCase()));
}

/** The lines of an answer streamed as JSON Lines that have arrived whole. */
function answerLines(text: string): unknown[] {
  const out: unknown[] = [];
  for (const line of text.split("\n").slice(0, -1)) {
    try {
      out.push(JSON.parse(line));
    } catch {
      // A line cut by the connection: the answer then has no result line, and says so.
    }
  }
  return out;
}

/**
 * One file to POST /api/import, with upload progress (fetch has none for request bodies), then the server's
 * progress: it answers the import as JSON Lines, a line per window of events written, the result last.
 */
function send(
  file: File,
  onProgress: (sent: number) => void,
  onWritten: (events: number) => void,
): Promise<{ status: number; body: ImportAnswer | null }> {
  return new Promise((resolve) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", `/api/import?filename=${encodeURIComponent(file.name)}`);
    xhr.setRequestHeader("content-type", "application/octet-stream");
    xhr.setRequestHeader("accept", "application/x-ndjson");
    xhr.setRequestHeader("x-branchpoint-upload", "1");
    xhr.upload.onprogress = (e) => onProgress(e.loaded);
    xhr.onprogress = () => {
      const last = answerLines(xhr.responseText).findLast(
        (l): l is { progress: { events: number } } => typeof l === "object" && l !== null && "progress" in l,
      );
      if (last) onWritten(last.progress.events);
    };
    xhr.onload = () => {
      if (xhr.status !== 200) {
        // Refused before the import started (too large, busy, signed out): one JSON answer with its status.
        let body: ImportAnswer | null = null;
        try {
          body = JSON.parse(xhr.responseText) as ImportAnswer;
        } catch {
          body = null;
        }
        resolve({ status: xhr.status, body });
        return;
      }
      const result = answerLines(xhr.responseText).findLast(
        (l): l is ImportAnswer & { status: number } => typeof l === "object" && l !== null && "status" in l,
      );
      resolve(result ? { status: result.status, body: result } : { status: 0, body: null });
    };
    xhr.onerror = () => resolve({ status: 0, body: null });
    xhr.send(file);
  });
}

/** Drop or pick files; each is imported on its own, with its detected format and its result. */
export function Uploader({ maxBytes }: { maxBytes: number }) {
  const [uploads, setUploads] = useState<Upload[]>([]);
  const [dragging, setDragging] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const queue = useRef<Promise<void>>(Promise.resolve());

  const update = (key: string, patch: Partial<Upload>) =>
    setUploads((all) => all.map((u) => (u.key === key ? { ...u, ...patch } : u)));

  function add(files: FileList | File[]) {
    const list = [...files];
    const fresh: Upload[] = list.map((f, i) => ({
      key: `${Date.now()}-${i}-${f.name}`,
      name: f.name,
      size: f.size,
      state: "queued",
      sent: 0,
      written: 0,
      format: null,
      sessions: [],
      message: null,
      issues: [],
    }));
    setUploads((all) => [...fresh, ...all]);
    // One file at a time, in the order given.
    list.forEach((file, i) => {
      const key = fresh[i]!.key;
      queue.current = queue.current.then(() => importOne(key, file));
    });
  }

  async function importOne(key: string, file: File) {
    if (file.size > maxBytes) {
      update(key, {
        state: "failed",
        message: `The file is ${formatBytes(file.size)}; the limit is ${formatBytes(maxBytes)}.`,
      });
      return;
    }
    update(key, { state: "uploading" });
    const { status, body } = await send(
      file,
      (sent) => update(key, { sent, state: sent >= file.size ? "importing" : "uploading" }),
      (written) => update(key, { written, state: "importing" }),
    );
    if (status === 201 && body?.sessions) {
      update(key, { state: "done", sent: file.size, format: body.format ?? null, sessions: body.sessions });
    } else {
      const message =
        body?.error?.message ??
        (status === 0 ? "The upload did not reach the server." : `The server answered ${status}.`);
      update(key, {
        state: "failed",
        format: body?.format ?? null,
        message,
        issues: notSaidIn(message, body?.error?.issues ?? []),
      });
    }
  }

  // Files chosen before this page was interactive fired their change event with nobody listening: take them now.
  useEffect(() => {
    const picker = input.current;
    if (picker?.files && picker.files.length > 0) {
      add(picker.files);
      picker.value = "";
    }
    // Once, on mount: later choices arrive through onChange.
  }, []);

  function onDrop(e: DragEvent) {
    e.preventDefault();
    setDragging(false);
    if (e.dataTransfer.files.length > 0) add(e.dataTransfer.files);
  }

  return (
    <section aria-label="Upload">
      <div
        onDragOver={(e) => {
          e.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={onDrop}
        data-testid="dropzone"
        className={`rounded-lg border-2 border-dashed px-6 py-10 text-center transition ${dragging ? "border-indigo-500 bg-indigo-50" : "border-slate-300 bg-white"}`}
      >
        <p className="text-sm font-medium text-slate-900">Drop session files here</p>
        <p className="mt-1 text-sm text-slate-600">
          One or many: native JSON or JSONL, OpenAI chat logs (τ-bench), OTLP JSON or protobuf, Agents SDK exports. Up
          to {formatBytes(maxBytes)} each.
        </p>
        <Button onClick={() => input.current?.click()} className="mt-4">
          Choose files
        </Button>
        <input
          ref={input}
          type="file"
          multiple
          className="sr-only"
          aria-label="Session files"
          onChange={(e) => {
            if (e.target.files && e.target.files.length > 0) add(e.target.files);
            e.target.value = "";
          }}
        />
      </div>

      {uploads.length > 0 ? (
        <ul className="mt-6 space-y-3" aria-label="Uploads">
          {uploads.map((u) => (
            <UploadCard key={u.key} upload={u} />
          ))}
        </ul>
      ) : null}
    </section>
  );
}

function UploadCard({ upload: u }: { upload: Upload }) {
  const percent = u.size === 0 ? 100 : Math.min(100, Math.round((u.sent / u.size) * 100));
  const created = u.sessions.filter((s) => !s.duplicate).length;
  const duplicates = u.sessions.length - created;
  return (
    <Card as="li" className="shadow-sm" data-testid="upload" data-file={u.name} data-state={u.state}>
      <div className="flex flex-wrap items-center gap-2">
        <span className="font-medium break-all text-slate-900">{u.name}</span>
        <span className="text-xs text-slate-500">{formatBytes(u.size)}</span>
        {u.format ? (
          <Badge tone="info" title="Detected format">
            {u.format}
          </Badge>
        ) : null}
        <span className="ml-auto">
          {u.state === "done" ? (
            <Badge tone="good">imported</Badge>
          ) : u.state === "failed" ? (
            <Badge tone="bad">failed</Badge>
          ) : (
            <Badge tone={u.state === "importing" ? "info" : "neutral"}>
              {u.state === "importing" ? "processing…" : u.state === "uploading" ? "uploading…" : "queued"}
            </Badge>
          )}
        </span>
      </div>

      {u.state === "uploading" || u.state === "importing" ? (
        <div className="mt-3">
          <div
            role="progressbar"
            aria-label={`Upload of ${u.name}`}
            aria-valuemin={0}
            aria-valuemax={100}
            // Once every byte is sent the server is still reading and saving: no number, an indeterminate bar.
            aria-valuenow={u.state === "importing" ? undefined : percent}
            aria-valuetext={
              u.state === "importing" ? `Uploaded; ${plural(u.written, "event")} written on the server` : `${percent} %`
            }
            className="h-2 overflow-hidden rounded bg-slate-100"
          >
            <div
              className={`h-full bg-indigo-500 ${u.state === "importing" ? "animate-pulse" : "transition-all"}`}
              style={{ width: `${percent}%` }}
            />
          </div>
          <p className="mt-1 text-xs text-slate-600" role={u.state === "importing" ? "status" : undefined}>
            {u.state === "importing"
              ? u.written > 0
                ? `Uploaded ${formatBytes(u.size)} (100 %); ${plural(u.written, "event")} written so far.`
                : `Uploaded ${formatBytes(u.size)} (100 %); processing… the server is reading and saving the sessions.`
              : `${formatBytes(u.sent)} of ${formatBytes(u.size)}`}
          </p>
        </div>
      ) : null}

      {u.state === "done" ? (
        <div className="mt-2">
          <p className="text-sm text-slate-700">
            {plural(created, "session")} created
            {duplicates > 0 ? `, ${duplicates} already imported before` : ""}.
          </p>
          <ul className="mt-2 space-y-1 text-sm">
            {u.sessions.map((s) => (
              <li key={s.id} className="flex items-center gap-2">
                <Link href={`/sessions/${s.id}`} className="text-indigo-700 hover:underline">
                  {s.title ?? s.id}
                </Link>
                <span className="text-xs text-slate-500">{plural(s.eventCount, "step")}</span>
                {s.duplicate ? (
                  <Badge tone="warn" title="This session was imported before; nothing was written">
                    duplicate
                  </Badge>
                ) : null}
              </li>
            ))}
          </ul>
        </div>
      ) : null}

      {u.state === "failed" ? (
        <div className="mt-2" role="alert">
          <p className="text-sm text-rose-800">{u.message} Nothing was imported from this file.</p>
          {u.issues.length > 0 ? (
            // A long list scrolls inside its box.
            <ScrollFrame
              label={`Issues in ${u.name}`}
              className="mt-2 max-h-64 overflow-auto rounded border border-rose-100 bg-rose-50 p-2 font-mono text-xs text-rose-900"
            >
              <ul className="space-y-1">
                {u.issues.slice(0, MAX_SHOWN_ISSUES).map((i, n) => (
                  <li key={n} data-testid="issue">
                    <span className="font-semibold">{i.path || "(document)"}</span>: {i.message}
                  </li>
                ))}
                {u.issues.length > MAX_SHOWN_ISSUES ? <li>… and {u.issues.length - MAX_SHOWN_ISSUES} more</li> : null}
              </ul>
            </ScrollFrame>
          ) : null}
        </div>
      ) : null}
    </Card>
  );
}
