"""The auditor console: static pages served at /console that read the auditors' lists."""
