"""Errors the bridge reports to the C++ side as {"ok": false, "error": {...}}."""


class BridgeError(Exception):
    """A problem with the request or the task, named by a stable kind."""

    def __init__(self, kind, message, file=None, line=0, col=0, detail=None):
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.file = file
        self.line = line
        self.col = col
        self.detail = detail

    def to_json(self):
        out = {"kind": self.kind, "message": self.message, "file": self.file or "",
               "line": int(self.line or 0), "col": int(self.col or 0)}
        if self.detail:
            out["detail"] = self.detail
        return out
