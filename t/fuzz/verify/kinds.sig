{
  "datacrumbs_signed": 1,
  "algorithm": "HMAC-SHA256",
  "key_id": "4e2e4d228cdbbb92",
  "summary": {
    "signer": "root",
    "uid": 0,
    "signed_at": 1795443062,
    "host": "vm",
    "tool": "dc-sign",
    "probes": 5,
    "layers": [
      "POSIX",
      "app",
      "kernel",
      "mm",
      "sys"
    ],
    "spec_sha256": "18331afa534c0e002e242548c3d2d4a1d662cef165bb916f4dd8d09bb8d4baab"
  },
  "spec": {
    "datacrumbs_probes": 1,
    "mode": "profile",
    "interval_ms": 100,
    "probes": [
      {
        "layer": "POSIX",
        "kind": "uprobe",
        "target": "/lib/x86_64-linux-gnu/libc.so.6",
        "function": "write",
        "offset": 1024,
        "args": [
          "fd",
          "ptr",
          "size"
        ],
        "ret": "size"
      },
      {
        "layer": "kernel",
        "kind": "kfunc",
        "function": "vfs_read",
        "args": [],
        "ret": "size"
      },
      {
        "layer": "sys",
        "kind": "syscall",
        "function": "close",
        "nr": 3,
        "args": [
          "fd"
        ],
        "ret": "status"
      },
      {
        "layer": "app",
        "kind": "usdt",
        "target": "/usr/bin/x",
        "function": "p:start",
        "offset": 64,
        "semaphore": 128,
        "args": [],
        "ret": "none"
      },
      {
        "layer": "mm",
        "kind": "tracepoint",
        "function": "exceptions:page_fault_user",
        "args": [],
        "ret": "none"
      }
    ]
  },
  "signature": "b2a9e3c12d7ebb078252c761da3400a623425d264fd993f9b62cafeccb22216c"
}
