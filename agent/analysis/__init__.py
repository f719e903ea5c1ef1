"""Deterministic analysis: the planner turns a question into skills and a scope; one module per skill.

Skills read canonical Arrow tables (agent.catalog.canonical) and return SkillResult objects
(agent.analysis.result). They never format prose and never see HTTP.
"""
