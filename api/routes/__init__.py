"""The service's routers: tables, judging, review jobs, WebSockets and pages."""
