"""Session policy: Citrix-farm defaults, typed, unknown keys rejected."""

import pytest

from pixel_stream.policy import PolicyError, SessionPolicy


def test_defaults_are_a_farms_defaults():
    policy = SessionPolicy()
    assert policy.idle_timeout_s is None
    assert policy.disconnect_grace_s == 180.0
    assert policy.mode == "desktop"
    assert policy.clipboard == "disabled"
    assert policy.file_transfer == "disabled"


def test_unknown_keys_are_an_error():
    with pytest.raises(PolicyError, match="idle_timout"):
        SessionPolicy.from_dict({"idle_timout": 30})


@pytest.mark.parametrize(
    "data",
    [
        {"clipboard": "bidirectional"},
        {"file_transfer": "enabled"},
        {"mode": "kiosk"},
        {"idle_timeout_s": 0},
        {"disconnect_grace_s": -1},
        {"max_fps": 120},
    ],
)
def test_values_are_checked(data):
    with pytest.raises(PolicyError):
        SessionPolicy.from_dict(data)


def test_round_trip():
    policy = SessionPolicy.from_dict({"mode": "published", "idle_timeout_s": 900})
    assert SessionPolicy.from_dict(policy.to_dict()) == policy
