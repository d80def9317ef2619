"""The judge: inputs, the reference, comparison, timing checks and the verdict; it never imports a
kernel. Its side of the cell (folders, the template's client) is here too."""
