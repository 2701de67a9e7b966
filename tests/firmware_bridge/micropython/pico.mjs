// Runs the board's firmware under the MicroPython WebAssembly port, as on a Pico.
//
// Usage: node pico.mjs MICROPYTHON_MJS SETUP_PY FILE...
// Every FILE (the firmware modules and the fakes of machine and rp2) is copied flat
// into /flash of the interpreter's virtual filesystem, as mpremote copies them to a
// Pico, and SETUP_PY is run there. The USB serial line is file descriptors 0 and 1
// (a pseudo-terminal's master end, non-blocking); the test's controls for the fake
// sensors arrive as lines on the descriptor named by PICO_CONTROLS_FD. Tracebacks go to standard error.
import fs from "node:fs";
import path from "node:path";

const [micropythonPath, setupPath, ...files] = process.argv.slice(2);
const { loadMicroPython } = await import(micropythonPath);
const controlsFd = Number(process.env.PICO_CONTROLS_FD);
const pause = new Int32Array(new SharedArrayBuffer(4));

function readHex(fd) {
    const buffer = Buffer.alloc(4096);
    try {
        const count = fs.readSync(fd, buffer, 0, buffer.length, null);
        return buffer.subarray(0, count).toString("hex");
    } catch (error) {
        if (error.code === "EAGAIN") return "";
        if (error.code === "EIO") process.exit(0); // the host side was closed
        throw error;
    }
}

const mp = await loadMicroPython({
    heapsize: 512 * 1024, // an RP2040 leaves MicroPython about 190 kB; stay in its order
    stdout: (line) => process.stderr.write(line + "\n"),
    stderr: (line) => process.stderr.write(line + "\n"),
});
mp.registerJsModule("pico_host", {
    // What the host sent since the last call, as hex ("" when nothing is waiting).
    read: () => readHex(0),
    // Bytes towards the host; like USB CDC with nobody listening, what does not fit is lost.
    write: (hex) => {
        try {
            fs.writeSync(1, Buffer.from(hex, "hex"));
        } catch (error) {
            if (error.code === "EIO") process.exit(0);
            if (error.code !== "EAGAIN") throw error;
        }
    },
    // The test's control lines since the last call.
    controls: () => Buffer.from(readHex(controlsFd), "hex").toString(),
    // A line for the test (the LED strip's words), on standard error.
    report: (line) => process.stderr.write(line + "\n"),
    sleep_ms: (ms) => Atomics.wait(pause, 0, 0, ms),
});
mp.FS.mkdir("/flash");
for (const file of files) {
    mp.FS.writeFile("/flash/" + path.basename(file), fs.readFileSync(file));
}
try {
    mp.runPython("import sys\nsys.path.insert(0, '/flash')\n" + fs.readFileSync(setupPath, "utf8"));
} catch (error) {
    process.stderr.write(String(error) + "\n");
    process.exit(1);
}
