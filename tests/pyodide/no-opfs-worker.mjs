// Test-only: js-shim/engine/engine-worker.mjs, unchanged, in a worker without the Origin Private File
// System (no-opfs.mjs, evaluated first): the engine must boot and answer without a memory
// snapshot (tests/pyodide/test_worker.py). Static imports, so the engine's message handler is set
// before any message arrives.
import "./no-opfs.mjs";
import "/modules/firefight/js-shim/engine/engine-worker.mjs?no-opfs";
