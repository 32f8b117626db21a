"""Export stage: a batch's shelves in; the Excel workbook and the Prefect artifacts' content out."""
