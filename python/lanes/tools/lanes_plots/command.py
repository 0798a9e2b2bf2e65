"""What every plot tool shares: its command line (INPUT PNG, a line saying what was drawn, or one error line) and
how it writes its PNG."""

import argparse
import sys


def plot_command(draw, doc, input_name, input_help, unit, argv=None):
    """Parses INPUT PNG from `argv`, calls draw(INPUT, PNG) (which returns a count of `unit`) and returns the exit
    status: 0, or 1 with "NAME: error: ..." on stderr when the input cannot be read or drawn."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument(input_name, help=input_help)
    parser.add_argument("png", help="the PNG to write")
    args = parser.parse_args(argv)
    try:
        count = draw(getattr(args, input_name), args.png)
    except (OSError, ValueError, KeyError) as error:
        print(f"{draw.__name__}: error: {error}", file=sys.stderr)
        return 1
    print(f"{args.png}: {count} {unit}")
    return 0


def save(figure, png_path):
    """Writes `figure` as a PNG and frees it."""
    import matplotlib.pyplot as plt
    figure.tight_layout()
    figure.savefig(png_path, dpi=100)
    plt.close(figure)
