"""The referee service: the API, the judges' station and the broadcast overlay (docs/service.md)."""
