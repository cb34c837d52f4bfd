"""A plugin that fails to import, on purpose: Firefight records the error in its plugin status
(and the table reports it to the GM) while every other ruleset plays on."""

raise ImportError("firefight-broken fails to import on purpose (an example of a broken plugin)")
