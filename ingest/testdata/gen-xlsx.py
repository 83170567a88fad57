# Writes the XLSX test files of TestXLSXOtherWriters with XlsxWriter and
# openpyxl (pip install xlsxwriter openpyxl) and prints the values openpyxl
# reads back, the reference of the test. Run in ingest/testdata.
import datetime, xlsxwriter, openpyxl
from openpyxl.styles import numbers
# XlsxWriter workbook, 1904 dates, many formats
wb = xlsxwriter.Workbook('xlsxwriter-1904.xlsx', {'date_1904': True})
ws = wb.add_worksheet('Data')
hdr = ['name', 'when', 'amount', 'pct', 'flag', 'time', 'big', 'formula']
for i, h in enumerate(hdr): ws.write(0, i, h)
fmt_date = wb.add_format({'num_format': 'dd/mm/yyyy'})
fmt_amt = wb.add_format({'num_format': '#,##0.00 "Kč"'})
fmt_pct = wb.add_format({'num_format': '0.0%'})
fmt_time = wb.add_format({'num_format': 'hh:mm:ss'})
rows = [("Žluťoučký kůň", datetime.date(2024, 3, 1), 1234.5, 0.125, True, datetime.time(13, 45, 30), 12345678901, None),
        ("druhý", datetime.date(1999, 12, 31), -7, 1, False, datetime.time(0, 0, 1), 1e-7, None)]
for r, row in enumerate(rows, start=1):
    ws.write_string(r, 0, row[0])
    ws.write_datetime(r, 1, datetime.datetime.combine(row[1], datetime.time()), fmt_date)
    ws.write_number(r, 2, row[2], fmt_amt)
    ws.write_number(r, 3, row[3], fmt_pct)
    ws.write_boolean(r, 4, row[4])
    ws.write_datetime(r, 5, datetime.datetime.combine(datetime.date(1904,1,1), row[5]), fmt_time)
    ws.write_number(r, 6, row[6])
    ws.write_formula(r, 7, '=C%d*2' % (r+1), None, row[2]*2)
ws2 = wb.add_worksheet('Rich')
ws2.write(0, 0, 'text')
bold = wb.add_format({'bold': True})
ws2.write_rich_string(1, 0, 'plain ', bold, 'bold', ' end')
wb.close()
# openpyxl workbook, 1900 dates
wb = openpyxl.Workbook()
ws = wb.active; ws.title = 'List 1'
ws.append(['id', 'datum', 'cena', 'kod'])
ws.append([1, datetime.datetime(2023, 7, 14, 8, 30), 99.9, '007'])
ws.append([2, datetime.date(1900, 2, 28), 1e20, 'A-1'])
ws['B2'].number_format = 'yyyy-mm-dd hh:mm'
ws['B3'].number_format = 'd.m.yyyy'
ws['C2'].number_format = '#,##0.00\\ [$€-407]'
ws.cell(row=5, column=6, value='far cell')
wb.save('openpyxl.xlsx')
# print reference values with openpyxl
for f in ['xlsxwriter-1904.xlsx', 'openpyxl.xlsx']:
    wb = openpyxl.load_workbook(f)
    print(f, 'epoch', wb.epoch)
    for ws in wb.worksheets:
        for row in ws.iter_rows(values_only=True):
            print(' ', ws.title, row)
