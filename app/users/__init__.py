"""A user's lifecycle: export everything held about them, erase them entirely."""
