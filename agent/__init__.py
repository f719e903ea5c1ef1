"""Catalog Gap Analyst: an A2A agent that answers merchants' questions about their product catalog.

Data flows one way: request → protocol → service → catalog → analysis → render → protocol events.
"""

__version__ = "0.1.0"
AGENT_NAME = "Catalog Gap Analyst"
