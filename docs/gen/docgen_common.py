"""Helpers shared by the page generators."""
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def md_cell(text: str) -> str:
    """Text safe inside one markdown table cell."""
    return ' '.join(str(text).split()).replace('|', '\\|')
