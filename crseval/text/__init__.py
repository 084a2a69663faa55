"""Text representations: sentence embeddings and similarity."""
