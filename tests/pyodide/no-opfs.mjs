// Test-only, imported first by no-opfs-worker.mjs: a worker without the Origin Private File
// System, as in a page outside a secure context (navigator.storage is missing there).
delete self.StorageManager?.prototype.getDirectory;
