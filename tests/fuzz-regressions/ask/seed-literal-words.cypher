MATCH (n) WHERE n.x = "CREATE" /* SET */ RETURN [x IN [1] | x * 2], n // DELETE
