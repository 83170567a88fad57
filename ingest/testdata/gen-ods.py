# Writes testdata/odfpy.ods for TestODSOtherWriter with odfpy (pip install odfpy):
# Czech-locale shown values, a percentage, a currency, a date and booleans.
from odf.opendocument import OpenDocumentSpreadsheet
from odf.table import Table, TableRow, TableCell
from odf.text import P
doc = OpenDocumentSpreadsheet()
t = Table(name="Tabulka 1")
def row(cells):
    tr = TableRow()
    for c in cells:
        if c is None:
            tc = TableCell()
        elif isinstance(c, tuple):
            kind, val, shown = c
            if kind == 'float': tc = TableCell(valuetype='float', value=val)
            elif kind == 'percentage': tc = TableCell(valuetype='percentage', value=val)
            elif kind == 'currency': tc = TableCell(valuetype='currency', value=val, currency='CZK')
            elif kind == 'date': tc = TableCell(valuetype='date', datevalue=val)
            elif kind == 'boolean': tc = TableCell(valuetype='boolean', booleanvalue=val)
            tc.addElement(P(text=shown))
        else:
            tc = TableCell(valuetype='string'); tc.addElement(P(text=c))
        tr.addElement(tc)
    t.addElement(tr)
row(['název', 'počet', 'podíl', 'cena', 'datum', 'platí'])
row(['Žluťoučký kůň', ('float', '42', '42'), ('percentage', '0.125', '12,5 %'), ('currency', '1234.5', '1 234,50 Kč'), ('date', '2024-03-01', '01.03.2024'), ('boolean', 'true', 'PRAVDA')])
row(['druhý', None, None, None, None, ('boolean', 'false', 'NEPRAVDA')])
doc.spreadsheet.addElement(t)
doc.save('odfpy.ods')
