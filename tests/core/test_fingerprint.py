from bfcl_action.core.fingerprint import case_set_hash, config_fingerprint


def test_case_set_hash_ignores_order_and_repeats() -> None:
    assert case_set_hash(["b", "a", "a"]) == case_set_hash(["a", "b"])
    assert case_set_hash(["a"]) != case_set_hash(["a", "b"])


def test_config_fingerprint_changes_with_any_setting() -> None:
    base = {"model": "m", "mode": "fc", "datasets": ["bfcl@2026.3.23"], "settings": {"t": 0.001}}
    fp = config_fingerprint(**base)  # type: ignore[arg-type]
    assert fp == config_fingerprint(**base)  # type: ignore[arg-type]
    assert fp != config_fingerprint(**{**base, "settings": {"t": 0.7}})  # type: ignore[arg-type]
    assert fp != config_fingerprint(**{**base, "mode": "prompt"})  # type: ignore[arg-type]
