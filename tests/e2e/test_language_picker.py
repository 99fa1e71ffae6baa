"""The language picker in a real browser (issue 46): chosen in the bar of the lobby, the
page comes back in that language and stays in it (the choice is kept in a cookie); at
the table on a phone, where the bar has no room for it, the picker is in the Options
menu, and the table keeps to the screen's width with it."""

from __future__ import annotations

from typing import Any

import pytest
from test_web_table import choose, wait_my_move

pytestmark = pytest.mark.e2e


def test_the_lobby_picker_changes_the_language_and_keeps_it(server: str, browser: Any) -> None:
    errors: list[str] = []
    ctx = browser.new_context(locale="en-GB")
    page = ctx.new_page()
    page.set_default_timeout(20_000)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server + "/")
    assert page.evaluate("document.documentElement.lang") == "en"
    assert page.get_by_test_id("start-button").inner_text() == "Deal the cards"
    with page.expect_navigation():
        page.get_by_test_id("lang-picker").select_option("es")
    page.wait_for_function("document.documentElement.lang === 'es'")
    assert page.get_by_test_id("start-button").inner_text() == "Reparte las cartas"
    page.goto(server + "/rules")  # another page, the same choice
    assert page.evaluate("document.documentElement.lang") == "es"
    assert page.get_by_test_id("lang-picker").input_value() == "es"
    assert not errors
    ctx.close()


def test_a_phone_at_the_table_finds_the_picker_in_the_options_menu(server: str,
                                                                   browser: Any) -> None:
    errors: list[str] = []
    ctx = browser.new_context(viewport={"width": 390, "height": 664}, is_mobile=True,
                              has_touch=True, locale="en-GB")
    page = ctx.new_page()
    page.set_default_timeout(20_000)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server + "/")
    page.get_by_test_id("name-input").fill("Ann")
    choose(page, "bot-easy")
    page.get_by_test_id("start-button").click()
    page.wait_for_url("**/play/**")
    wait_my_move(page)
    assert not page.get_by_test_id("lang-picker").is_visible()  # no room in the bar
    overflow = "document.documentElement.scrollWidth - document.documentElement.clientWidth"
    assert page.evaluate(overflow) <= 0
    page.get_by_test_id("menu-button").tap()
    picker = page.get_by_test_id("menu-lang-picker")
    assert picker.is_visible()
    with page.expect_navigation():
        picker.select_option("de")
    page.wait_for_function("document.documentElement.lang === 'de'")
    wait_my_move(page)  # the same table, in German
    assert page.get_by_test_id("score-sheet-button").inner_text() == "Punktetabelle"
    assert page.evaluate(overflow) <= 0
    assert not errors
    ctx.close()
