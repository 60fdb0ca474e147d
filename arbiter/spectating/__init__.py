"""spectating"""
