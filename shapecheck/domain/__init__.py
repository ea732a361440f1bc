"""The input domain: the conditions a model's nodes need, as simple relations over its input dims."""
