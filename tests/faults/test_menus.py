"""Bad menus: each is refused before anything runs, exit 2, in one line that names the menu file and the culprit."""

import pytest

from faults import assert_one_line_error, run_limited

SOURCE = "[source]\nplugin = 'synthetic'\nevents = 5\nsize = { a = 10 }\n"


@pytest.mark.parametrize(
    "text, fragments",
    [
        ("", ["the menu is empty"]),
        ("# only a comment\n\n   \n", ["the menu is empty"]),
        ("[source\nplugin = 'empty'\n", ["syntax error at line 1"]),
        ("[source]\nplugin = 'empty'\nplugin = 'empty'\n", ["syntax error at line 3"]),
        ("source = 3\n", ["'source' must be a table"]),
        ("[source]\nplugin = 3\n", ["source needs a string 'plugin'"]),
        ("[source]\nplugin = ''\n", ["source needs a string 'plugin'"]),
        ("[source]\nplugin = 'empty'\nevents = [1, 2]\n", ["option 'events' is given 2 times"]),
        ("[source]\nplugin = 'empty'\nevents = { x = 1 }\n", ["unknown option 'events.x'"]),
        ("[source]\nplugin = 'empty'\nevents = 2026-01-01\n", ["source.events must be a string, number or boolean"]),
        ("[source]\nplugin = 'empty'\nevnets = 5\n", ["unknown option 'evnets'"]),
        ("[source]\nplugin = 'nosuch'\n", ["unknown source 'nosuch'"]),
        (SOURCE + "[job]\nthreads = 'two'\n", ["job.threads must be an integer"]),
        (SOURCE + "[job]\nevents = -1\n", ["job.events must be an integer"]),
        (SOURCE + "[job]\nthreads = 5000000000\n", ["job.threads must be an integer from 0 to 4294967295"]),
        (SOURCE + "[job]\nthreds = 2\n", ["unknown key job.threds"]),
        (SOURCE + "[job]\nplugin-libraries = './libmine.so'\n", ["job.plugin-libraries must be an array of strings"]),
        (SOURCE + "[job]\nplugin-libraries = ['./libmine.so']\n", ["plugin library '", "/libmine.so' is not found"]),
        (SOURCE + "[[module]]\nplugin = 'producer'\nlabel = 7\n", ["module[0] needs a string 'label'"]),
        (SOURCE + "[[module]]\nplugin = 'producer'\nlabel = ''\n", ["module[0] needs a string 'label'"]),
        (SOURCE + "[module]\nplugin = 'producer'\nlabel = 'x'\n", ["'module' must be an array of tables"]),
        (SOURCE + "[[module]]\nlabel = 'x'\nplugin = 'producer'\nproduces = { p = 1 }\n"
                  "[[module]]\nlabel = 'x'\nplugin = 'filter'\n", ["two modules are labelled 'x'"]),
        (SOURCE + "[[output]]\nlabel = 'o'\nplugin = 'dummy'\nselect = 'p'\n", ["output[0].select must be an array"]),
        (SOURCE + "[[output]]\nlabel = 'o'\nplugin = 'dummy'\nkeep = ['b*']\n", ["keep=b*", "matches no product"]),
        (SOURCE + "[[path]]\nname = 'p'\nmodules = [1]\n", ["path[0].modules must be an array of strings"]),
        (SOURCE + "[[waiter]]\nplugin = 'busy'\nproducts = ['z']\n", ["products=z", "matches no product"]),
    ],
)
def test_bad_menu(tmp_path, text, fragments):
    menu = tmp_path / "menu.toml"
    menu.write_text(text)
    result = run_limited("run", "--menu", menu, cwd=tmp_path, report=False)
    assert_one_line_error(result, *fragments)
    assert result.report is None


def test_a_menu_label_repeated_on_the_command_line_is_refused(tmp_path):
    menu = tmp_path / "menu.toml"
    menu.write_text(SOURCE + "[[module]]\nlabel = 'x'\nplugin = 'producer'\nproduces = { p = 1 }\n")
    result = run_limited("run", "--menu", menu, "--module", "filter:label=x", cwd=tmp_path, report=False)
    assert_one_line_error(result, "two modules are labelled 'x'")


def test_menu_job_without_end_must_be_asked_for(tmp_path):
    menu = tmp_path / "menu.toml"
    menu.write_text("[job]\nevents = 0\n[source]\nplugin = 'empty'\n")
    assert_one_line_error(run_limited("run", "--menu", menu, cwd=tmp_path, report=False), "never ends", "--endless")
