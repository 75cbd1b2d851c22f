"""The relation model: supports / contradicts / unrelated between a hypothesis and a node."""
