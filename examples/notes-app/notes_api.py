"""A small stateful notes API: the example environment for multi-turn evaluation.

The class follows BFCL's environment convention: `NotesAPI()` then `_load_scenario(state)`
with the case's `initial_config`; public attributes are the state the checker compares;
methods return dicts (sent to the model as JSON). It is deterministic: ids count up.
"""

from __future__ import annotations

from copy import deepcopy
from typing import Any


class NotesAPI:
    def __init__(self) -> None:
        self.user: str | None = None
        self.notes: dict[int, dict[str, Any]] = {}
        self.next_id = 1
        self._scenario: dict[str, Any] = {}

    def _load_scenario(self, scenario: dict[str, Any]) -> None:
        self._scenario = deepcopy(scenario)
        self.user = scenario.get("user")
        self.notes = {int(k): dict(v) for k, v in scenario.get("notes", {}).items()}
        self.next_id = max(self.notes, default=0) + 1

    def _need_login(self) -> dict[str, Any] | None:
        return None if self.user else {"error": "not logged in"}

    def _find(self, note_id: int) -> dict[str, Any] | None:
        return self.notes.get(int(note_id))

    def login(self, username: str) -> dict[str, Any]:
        """Log in as `username`."""
        self.user = username
        return {"status": "logged in", "user": username}

    def logout(self) -> dict[str, Any]:
        """Log out."""
        self.user = None
        return {"status": "logged out"}

    def create_note(
        self, title: str, body: str = "", tags: list[str] | None = None
    ) -> dict[str, Any]:
        """Create a note; returns its id."""
        if (err := self._need_login()) is not None:
            return err
        note_id = self.next_id
        self.next_id += 1
        self.notes[note_id] = {
            "title": title,
            "body": body,
            "tags": sorted(set(tags or [])),
            "pinned": False,
            "archived": False,
            "owner": self.user,
        }
        return {"id": note_id}

    def get_note(self, note_id: int) -> dict[str, Any]:
        """One note by id."""
        note = self._find(note_id)
        return {"id": int(note_id), **note} if note else {"error": f"no note {note_id}"}

    def update_note(
        self, note_id: int, title: str | None = None, body: str | None = None
    ) -> dict[str, Any]:
        """Change a note's title and/or body."""
        if (err := self._need_login()) is not None:
            return err
        note = self._find(note_id)
        if note is None:
            return {"error": f"no note {note_id}"}
        if title is not None:
            note["title"] = title
        if body is not None:
            note["body"] = body
        return {"id": int(note_id), "updated": True}

    def delete_note(self, note_id: int) -> dict[str, Any]:
        """Delete a note."""
        if (err := self._need_login()) is not None:
            return err
        if self.notes.pop(int(note_id), None) is None:
            return {"error": f"no note {note_id}"}
        return {"deleted": int(note_id)}

    def list_notes(self, include_archived: bool = False) -> dict[str, Any]:
        """Ids and titles of the notes, pinned first."""
        rows = [
            {"id": i, "title": n["title"]}
            for i, n in sorted(self.notes.items(), key=lambda kv: (not kv[1]["pinned"], kv[0]))
            if include_archived or not n["archived"]
        ]
        return {"notes": rows}

    def search_notes(self, query: str) -> dict[str, Any]:
        """Ids of notes whose title or body contains `query` (case-insensitive)."""
        needle = query.lower()
        hits = [
            i
            for i, n in sorted(self.notes.items())
            if needle in (n["title"] + " " + n["body"]).lower()
        ]
        return {"ids": hits}

    def tag_note(self, note_id: int, tag: str) -> dict[str, Any]:
        """Add a tag to a note."""
        note = self._find(note_id)
        if note is None:
            return {"error": f"no note {note_id}"}
        note["tags"] = sorted(set(note["tags"]) | {tag})
        return {"id": int(note_id), "tags": note["tags"]}

    def untag_note(self, note_id: int, tag: str) -> dict[str, Any]:
        """Remove a tag from a note."""
        note = self._find(note_id)
        if note is None:
            return {"error": f"no note {note_id}"}
        note["tags"] = [t for t in note["tags"] if t != tag]
        return {"id": int(note_id), "tags": note["tags"]}

    def pin_note(self, note_id: int, pinned: bool = True) -> dict[str, Any]:
        """Pin (or unpin) a note."""
        note = self._find(note_id)
        if note is None:
            return {"error": f"no note {note_id}"}
        note["pinned"] = bool(pinned)
        return {"id": int(note_id), "pinned": note["pinned"]}

    def archive_note(self, note_id: int) -> dict[str, Any]:
        """Archive a note (hidden from list_notes unless asked)."""
        note = self._find(note_id)
        if note is None:
            return {"error": f"no note {note_id}"}
        note["archived"] = True
        return {"id": int(note_id), "archived": True}

    def count_notes(self, tag: str | None = None) -> dict[str, Any]:
        """How many notes there are (with `tag`, if given)."""
        count = sum(1 for n in self.notes.values() if tag is None or tag in n["tags"])
        return {"count": count}
