"""The Live curation pipeline: contributed function definitions -> versioned Live releases."""
