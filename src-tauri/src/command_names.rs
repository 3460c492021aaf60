// Generated from src/api/ops.rs by `provex contract`. Do not edit. The desktop shell's IPC
// commands: read by build.rs (an `allow-<name>` permission each) and by the invoke handler.
&[
    "call",
    "subscribe",
    "unsubscribe",
]
