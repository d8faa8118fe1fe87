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
    "probes": 4,
    "layers": [
      "sys"
    ],
    "spec_sha256": "fa6efb43c85cb7f3c428c3d548f7ac34daf535964861d2314abe2c8b29d738dc"
  },
  "spec": {
    "datacrumbs_probes": 1,
    "mode": "trace",
    "interval_ms": 1000,
    "probes": [
      {
        "layer": "sys",
        "kind": "syscall",
        "function": "chdir",
        "nr": 80,
        "args": [
          "path"
        ],
        "ret": "status"
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
        "layer": "sys",
        "kind": "syscall",
        "function": "copy_file_range",
        "nr": 326,
        "args": [
          "fd",
          "ptr",
          "fd",
          "ptr",
          "size",
          "flags"
        ],
        "ret": "size"
      },
      {
        "layer": "sys",
        "kind": "syscall",
        "function": "creat",
        "nr": 85,
        "args": [
          "path",
          "mode"
        ],
        "ret": "fd"
      }
    ]
  },
  "signature": "ce00fd75fca7c162a4b7b3bbe7ff10cf68b7216f3b7ffa427b69bc929b5b97cd"
}
