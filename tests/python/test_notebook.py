"""examples/notebooks/lanes.ipynb runs clean: executed cell by cell by nbclient in an ipykernel kernel of this
Python, no cell may raise or write to stderr; each result, scan and histogram shows (HTML or an image)."""

import nbformat
from nbclient import NotebookClient

from conftest import REPO

NOTEBOOK = REPO / "examples" / "notebooks" / "lanes.ipynb"


def test_the_example_notebook_runs_clean():
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    client = NotebookClient(notebook, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(NOTEBOOK.parent)}})
    client.execute()
    outputs = [output for cell in notebook.cells if cell.cell_type == "code" for output in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    assert not [o.text for o in outputs if o.output_type == "stream" and o.name == "stderr"]
    pages = [o for o in outputs if "text/html" in o.get("data", {}) and "<iframe srcdoc=" in o["data"]["text/html"]]
    assert len(pages) == 2  # the result's HTML report and the scan's page
    texts = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    assert "has no option 'scael'" in texts and "module 'fault'" in texts
