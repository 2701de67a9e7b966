"""What shows the table to people: the web panel (``panel/``: kiosk, phones, referee
page) and the report to the café's broker (``fleet.py``). Each renders the table's
pushed state; what a person asks for goes back as a command."""
