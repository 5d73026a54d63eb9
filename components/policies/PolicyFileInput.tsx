"use client";

/** Picks a policy file from disk and hands over its text (it fills the import box; nothing is sent yet). */
export function PolicyFileInput({ onText, className }: { onText: (text: string) => void; className: string }) {
  return (
    <input
      type="file"
      accept="application/json,.json"
      aria-label="Upload a policy file"
      className={className}
      onChange={(e) => {
        const file = e.target.files?.[0];
        if (file) void file.text().then(onText);
      }}
    />
  );
}
