//! Python `str()` / `repr()` of JSON-like values (in progress).
