"""Understanding stage: a curator's brief in; its ThemeQuery, intent, references and query variants out."""
