"""stub"""
from agent.catalog.readers.generic import build  # noqa: F401
