// Runs a MicroPython script in the real MicroPython VM (the WebAssembly port) under Node.js.
//
//   node firmware/vm/run.mjs MANIFEST.json
//
// MANIFEST: {"files": {"/lib/protocol.mpy": "/abs/path/protocol.mpy", ...}, "script": "/abs/path/check.py"}.
// Each file is written into the VM's file system (/lib is on its sys.path), then the script runs as __main__;
// its output goes to stdout, and a Python exception ends the process with status 1 and the traceback on stderr.
import { loadMicroPython } from "@micropython/micropython-webassembly-pyscript";
import { readFileSync } from "node:fs";
import { dirname } from "node:path";

const manifest = JSON.parse(readFileSync(process.argv[2], "utf8"));
const mp = await loadMicroPython({
  heapsize: 8 * 1024 * 1024,
  stdout: (line) => process.stdout.write(line + "\n"),
  stderr: (line) => process.stderr.write(line + "\n"),
});
for (const [target, source] of Object.entries(manifest.files)) {
  mp.FS.mkdirTree(dirname(target));
  mp.FS.writeFile(target, readFileSync(source));
}
try {
  mp.runPython(readFileSync(manifest.script, "utf8"));
} catch (error) {
  process.stderr.write(`${error}\n`);
  process.exit(1);
}
