"""The pages as served: plain HTML and JavaScript, with what the server puts in them."""

from __future__ import annotations

import html
import re

from referee.tracker import MIN_ROLL_CONFIDENCE
from tests.api.conftest import Service
from vision.dice.stream import AT_EXIT


def test_the_station_marks_doubtful_rolls_by_the_trackers_threshold(service: Service) -> None:
    """The station's script reads the threshold from its page, as the review's timeline
    reads it from the tracker: a roll under it is shown as read with doubt."""
    page = service.client.get("/station")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    found = re.search(r'<meta name="roll-doubt-below" content="([^"]*)">', page.text)
    assert found is not None and float(found.group(1)) == MIN_ROLL_CONFIDENCE
    script = service.client.get("/static/station.js").text
    assert 'meta[name="roll-doubt-below"]' in script and "< ROLL_DOUBT_BELOW" in script
    # A roll with a die at the box's exit asks the judges to look in the review's words.
    found = re.search(r'<meta name="roll-at-exit" content="([^"]*)">', page.text)
    assert found is not None and html.unescape(found.group(1)) == AT_EXIT
    assert 'meta[name="roll-at-exit"]' in script and "record.at_exit === true" in script
